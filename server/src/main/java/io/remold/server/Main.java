package io.remold.server;

import io.remold.cli.CommandLine;
import io.remold.cli.UntilStopped;
import io.remold.cli.UsageException;
import io.remold.cli.preview.PreviewCommand;
import io.remold.cli.why.WhyCommand;
import io.remold.playground.PlaygroundCommand;
import io.remold.server.kube.ClusterObjectSource;
import io.remold.server.log.Logs;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Command line entry point: {@code serve} (default) and {@code --help}; {@code eval}, {@code test}, {@code convert} and
 * {@code version} are the cli module's ({@link io.remold.cli.Main}), run from here too so the server's jar and image
 * keep them; so is {@code preview}, given the Kubernetes client for {@code --kubeconfig} here, and the playground
 * page's {@code playground} (its own web server on loopback; {@code serve} never serves the page).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** Runs a command; {@code serve} returns only when the process is shut down. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        boolean named = args.length > 0 && (!args[0].startsWith("-") || args[0].equals("--help")
                || args[0].equals("-h"));
        String command = named ? args[0] : "serve";
        String[] rest = named ? Arrays.copyOfRange(args, 1, args.length) : args;
        return switch (command) {
            case "serve" -> serve(rest, out, err);
            case "eval", "test", "convert", "version" -> io.remold.cli.Main.run(args, out, err);
            case "preview" -> PreviewCommand.run(rest, out, err, ClusterObjectSource::connect);
            case "playground" -> PlaygroundCommand.run(rest, out, err);
            case "why" -> WhyCommand.run(rest, out, err, ClusterObjectSource::connect);
            case "help", "--help", "-h" -> {
                help(out);
                yield 0;
            }
            default -> {
                err.println("unknown command \"" + command + "\"");
                help(err);
                yield 2;
            }
        };
    }

    private static int serve(String[] args, PrintStream out, PrintStream err) {
        ServerConfig config;
        try {
            Map<String, String> flags = flags(args);
            if (flags.containsKey("help")) {
                help(out);
                return 0;
            }
            config = ServerConfig.load(flags, System.getenv());
        } catch (UsageException | IllegalArgumentException e) {
            err.println("remold: " + e.getMessage());
            err.println("run 'remold --help' for the options");
            return 2;
        }
        Logs.configure(config.logFormat(), config.logLevel(), out);
        Serve running;
        try {
            running = Serve.start(config, out);
        } catch (RuntimeException e) {
            err.println("remold: cannot start: " + e.getMessage());
            return 1;
        }
        UntilStopped.await(running::close, "remold-shutdown");
        return 0;
    }

    /** {@code --key value}, {@code --key=value}, or a bare {@code --key} for true; keys without the dashes. */
    static Map<String, String> flags(String[] args) {
        var flags = new LinkedHashMap<String, String>();
        var line = new CommandLine(args);
        while (line.next()) {
            flags.put(line.flag().substring(2), line.optionalValue().orElse("true"));
        }
        return flags;
    }

    private static void help(PrintStream out) {
        out.println("""
                Remold admission server
                usage: remold [serve] [--option value ...]   serve the webhooks (folder mode with --rules DIR,
                                                            cluster mode with --kubeconfig FILE or --in-cluster)
                       remold eval --help                   evaluate rules offline against a manifest
                       remold preview --help                what rules would do to the objects of a folder or a
                                                            cluster
                       remold test --help                   run test suites (remold-test.yaml) of rules
                       remold playground --help             a local web page to try rules on an object
                       remold convert --help                Gatekeeper mutators and KubeMod rules as remold.io ModRules
                       remold why --help                    which rule changed a field of an object (in a cluster or
                                                            a file), and why
                       remold version
                Options (environment variable in brackets; defaults in application.yaml):""");
        for (ServerConfig.Key key : ServerConfig.KEYS) {
            out.printf("  --%-24s %s [%s]%n", key.name(), key.help(), key.env());
        }
    }
}

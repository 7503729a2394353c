package io.remold.server;

import io.remold.server.convert.ConvertCommand;
import io.remold.server.eval.EvalCommand;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** Command line entry point: {@code serve} (default), {@code eval}, {@code convert}, {@code version}, {@code --help}. */
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
            case "eval" -> EvalCommand.run(rest, out, err);
            case "convert" -> ConvertCommand.run(rest, out, err);
            case "version" -> {
                out.println("remold " + version());
                yield 0;
            }
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
        } catch (IllegalArgumentException e) {
            err.println("remold: " + e.getMessage());
            err.println("run 'remold --help' for the options");
            return 2;
        }
        Logs.configure(config.logFormat(), out);
        Serve running;
        try {
            running = Serve.start(config, out);
        } catch (RuntimeException e) {
            err.println("remold: cannot start: " + e.getMessage());
            return 1;
        }
        var stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            running.close();
            stopped.countDown();
        }, "remold-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** {@code --key value}, {@code --key=value}, or a bare {@code --key} for true. */
    static Map<String, String> flags(String[] args) {
        var flags = new LinkedHashMap<String, String>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new IllegalArgumentException("unexpected argument \"" + arg + "\" (position " + (i + 1) + ")");
            }
            String name = arg.substring(2);
            int eq = name.indexOf('=');
            if (eq >= 0) {
                flags.put(name.substring(0, eq), name.substring(eq + 1));
            } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                flags.put(name, args[++i]);
            } else {
                flags.put(name, "true");
            }
        }
        return flags;
    }

    private static String version() {
        String version = Main.class.getPackage().getImplementationVersion();
        return version == null ? "development" : version;
    }

    private static void help(PrintStream out) {
        out.println("""
                Remold admission server
                usage: remold [serve] [--option value ...]   serve the webhooks (folder mode with --rules DIR,
                                                            cluster mode with --kubeconfig FILE or --in-cluster)
                       remold eval --help                   evaluate rules offline against a manifest
                       remold convert --help                Gatekeeper mutators and KubeMod rules as remold.io ModRules
                       remold version
                Options (environment variable in brackets; defaults in application.yaml):""");
        for (ServerConfig.Key key : ServerConfig.KEYS) {
            out.printf("  --%-24s %s [%s]%n", key.name(), key.help(), key.env());
        }
    }
}

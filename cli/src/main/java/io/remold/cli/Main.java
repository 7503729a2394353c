package io.remold.cli;

import io.remold.cli.convert.ConvertCommand;
import io.remold.cli.eval.EvalCommand;
import io.remold.cli.preview.ClusterConnector;
import io.remold.cli.preview.PreviewCommand;
import io.remold.cli.suite.TestCommand;
import io.remold.cli.why.WhyCommand;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * The offline commands, {@code remold eval|preview|test|convert|why|version|help}: the engine and the rule families without a server.
 * The server's {@code Main} hands these commands to {@link #run}, so its jar and image run them too.
 */
public final class Main {
    private static final String USAGE = """
            Remold command line: rules offline
            usage: remold eval --help      evaluate rules offline against a manifest
                   remold preview --help   what rules would do to the objects of a folder (or, with the
                                           server's jar, of a cluster)
                   remold test --help      run test suites (remold-test.yaml): expected results of rules
                   remold convert --help   Gatekeeper mutators and KubeMod rules as remold.io ModRules
                   remold why --help       which rule changed a field of an object, and why
                   remold version""";

    private Main() {
    }

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** Runs {@code args[0]} with the arguments after it; returns the exit code (2 for a usage error). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        String command = args.length == 0 ? "help" : args[0];
        String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
        return switch (command) {
            case "eval" -> EvalCommand.run(rest, out, err);
            case "convert" -> ConvertCommand.run(rest, out, err);
            case "preview" -> PreviewCommand.run(rest, out, err, ClusterConnector.NONE);
            case "test" -> TestCommand.run(rest, out, err);
            case "why" -> WhyCommand.run(rest, out, err, ClusterConnector.NONE);
            case "version" -> {
                out.println("remold " + version());
                yield 0;
            }
            case "help", "--help", "-h" -> {
                out.println(USAGE);
                yield 0;
            }
            default -> {
                err.println("unknown command \"" + command + "\"");
                err.println(USAGE);
                yield 2;
            }
        };
    }

    /** The build's version from the jar's manifest; {@code development} when run from classes. */
    private static String version() {
        String version = Main.class.getPackage().getImplementationVersion();
        return version == null ? "development" : version;
    }
}

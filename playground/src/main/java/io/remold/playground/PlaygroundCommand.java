package io.remold.playground;

import io.remold.cli.CommandLine;
import io.remold.cli.UntilStopped;
import io.remold.cli.UsageException;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Set;

/** {@code remold playground}: serves the playground page until the process is stopped. */
public final class PlaygroundCommand {
    static final String USAGE = """
            usage: remold playground [--port 8090] [--bind 127.0.0.1] [--examples DIR]
            Serves a page to try rules on an object, decided as remold eval decides it (no cluster).
            --port PORT: the port (default 8090; 0 for any free one).
            --bind ADDRESS: the address to listen on (default 127.0.0.1, this machine only).
            --examples DIR: read the examples from DIR (laid out as the repository's examples/) instead of the
            ones in the jar.""";
    /** Every flag the command takes; docs/playground.md documents each (PlaygroundCommandTest). */
    static final Set<String> FLAGS = Set.of("--port", "--bind", "--examples", "--help");

    private PlaygroundCommand() {
    }

    /** Options as parsed; {@code examples} null for the jar's. */
    record Options(int port, String bind, Path examples, boolean help) {
        static Options parse(String[] args) {
            int port = 8090;
            String bind = "127.0.0.1";
            Path examples = null;
            var line = new CommandLine(args);
            while (line.next(FLAGS)) {
                switch (line.flag()) {
                    case "--help" -> {
                        line.noValue();
                        return new Options(port, bind, examples, true);
                    }
                    case "--port" -> port = port(line);
                    case "--bind" -> bind = line.value();
                    case "--examples" -> examples = line.path(line.value());
                    default -> throw new IllegalStateException("flag " + line.flag() + " is in FLAGS but not handled");
                }
            }
            return new Options(port, bind, examples, false);
        }

        private static int port(CommandLine line) {
            String value = line.value();
            try {
                int port = Integer.parseInt(value);
                if (port >= 0 && port <= 65535) {
                    return port;
                }
            } catch (NumberFormatException e) {
                // said below
            }
            throw line.invalid("--port expects a port number (0 to 65535), got \"" + value + "\"");
        }
    }

    /** Runs the command with the arguments after its name; returns only when stopped (0) or on a problem (2, 1). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (UsageException e) {
            err.println("remold playground: " + e.getMessage());
            err.println("remold playground: usage: remold playground --help");
            return 2;
        }
        if (options.help()) {
            out.println(USAGE);
            return 0;
        }
        Playground playground;
        try {
            Examples examples = options.examples() == null ? Examples.packaged() : Examples.read(options.examples());
            playground = Playground.start(options.bind(), options.port(), examples);
        } catch (RuntimeException e) {
            err.println("remold playground: cannot start: " + e.getMessage());
            return 1;
        }
        String host = options.bind().contains(":") ? "[" + options.bind() + "]" : options.bind();
        out.println("remold playground: http://" + host + ":" + playground.port() + "/ (Ctrl-C stops it)");
        out.flush();
        UntilStopped.await(playground::close, "remold-playground-shutdown");
        return 0;
    }
}

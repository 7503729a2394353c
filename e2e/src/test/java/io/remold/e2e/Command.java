package io.remold.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a command line to completion, as a user would in a shell. */
record Command(List<String> argv, String stdin) {

    /** What a finished command left behind. */
    record Result(List<String> argv, int exitCode, String stdout, String stderr) {
        boolean ok() {
            return exitCode == 0;
        }

        /** Fails with everything the command printed, for commands that must succeed. */
        Result orFail() {
            if (!ok()) {
                throw new AssertionError(this.toString());
            }
            return this;
        }

        @Override
        public String toString() {
            return String.join(" ", argv) + "\nexit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    static Command of(String... argv) {
        return new Command(List.of(argv), null);
    }

    /** {@code kubectl --kubeconfig FILE args...}. */
    static Command kubectl(Path kubeconfig, String... args) {
        var argv = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString()));
        argv.addAll(List.of(args));
        return new Command(argv, null);
    }

    /** A system property that the Maven profile running the scenarios sets ({@code -Pe2e}, {@code -Pkind}). */
    static String requiredProperty(String name, String profile) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set: run with ./mvnw verify -P"
                    + profile);
        }
        return value;
    }

    Command withInput(String text) {
        return new Command(argv, text);
    }

    Command with(String... more) {
        var all = new ArrayList<>(argv);
        all.addAll(List.of(more));
        return new Command(all, stdin);
    }

    Result run() {
        try {
            Path out = Files.createTempFile("e2e-out", ".txt");
            Path err = Files.createTempFile("e2e-err", ".txt");
            try {
                var builder = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile());
                if (stdin == null) {
                    builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
                }
                Process process = builder.start();
                if (stdin != null) {
                    try (var in = process.getOutputStream()) {
                        in.write(stdin.getBytes(StandardCharsets.UTF_8));
                    }
                }
                if (!process.waitFor(120, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError("timed out after 120 s: " + String.join(" ", argv));
                }
                return new Result(argv, process.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted: " + String.join(" ", argv), e);
        }
    }
}

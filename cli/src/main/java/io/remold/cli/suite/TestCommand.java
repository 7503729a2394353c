package io.remold.cli.suite;

import io.remold.cli.CommandLine;
import io.remold.cli.UsageException;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * {@code remold test [DIR|FILE ...]}: runs the test suites ({@code remold-test.yaml}) found under the folders (and
 * the suite files given), prints a table and each failure's diff. Exit codes: 0 every result as expected, 1 a
 * mismatch, 2 a usage error or a broken suite (every other suite still runs).
 */
public final class TestCommand {
    static final int PASSED = 0;
    static final int FAILED = 1;
    static final int BROKEN = 2;
    /** The name of a suite file in a folder. */
    public static final String SUITE_FILE = "remold-test.yaml";

    static final String USAGE = """
            usage: remold test [DIR|FILE ...] [--output text|json]
            Runs the test suites: every remold-test.yaml under each DIR (recursively; default the current folder),
            and each FILE given. See docs/testing.md for the suite's format.
            --output text|json: a table and each failure's diff (default), or one JSON object for machines.
            Exit codes: 0 all results as expected, 1 a mismatch, 2 a usage error or a broken suite.""";

    /** Every flag test takes; docs/testing.md documents each (TestCommandTest). */
    static final Set<String> FLAGS = Set.of("--output", "--help");

    private TestCommand() {
    }

    /** Runs {@code test} with the arguments after the command name; returns the exit code. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        var paths = new ArrayList<String>();
        boolean json = false;
        List<Path> suites;
        try {
            var line = new CommandLine(args);
            while (line.next(FLAGS, paths)) {
                if (line.flag().equals("--help")) {
                    line.noValue();
                    out.println(USAGE);
                    return PASSED;
                }
                String value = line.value();
                if (!value.equals("text") && !value.equals("json")) {
                    throw line.invalid("--output expects text or json, got \"" + value + "\"");
                }
                json = value.equals("json");
            }
            suites = suites(paths.isEmpty() ? List.of(".") : paths);
        } catch (UsageException e) {
            err.println("remold test: " + e.getMessage());
            err.println("remold test: usage: remold test --help");
            return BROKEN;
        }
        var rows = new ArrayList<SuiteRun.Row>();
        var errors = new ArrayList<String>();
        for (Path file : suites) {
            try {
                rows.addAll(SuiteRun.run(SuiteReader.read(file), err));
            } catch (UsageException e) {
                errors.add(e.getMessage());
                e.getMessage().lines().forEach(l -> err.println("remold test: " + l));
            }
        }
        TestReport.print(rows, errors, suites.size(), json, out);
        out.flush();
        return !errors.isEmpty() ? BROKEN : rows.stream().allMatch(SuiteRun.Row::passed) ? PASSED : FAILED;
    }

    /** The suite files: the files given, and the {@value SUITE_FILE} files under the folders; sorted, no hidden ones. */
    static List<Path> suites(List<String> paths) {
        var suites = new TreeSet<Path>();
        for (String name : paths) {
            Path path = Path.of(name).normalize();
            if (Files.isRegularFile(path)) {
                suites.add(path);
            } else if (Files.isDirectory(path)) {
                try (Stream<Path> files = Files.walk(path)) {
                    files.filter(f -> f.getFileName().toString().equals(SUITE_FILE) && Files.isRegularFile(f))
                            .filter(f -> !hidden(path.relativize(f)))
                            .forEach(suites::add);
                } catch (IOException | UncheckedIOException e) {
                    throw new UsageException(path + ": cannot read: " + e.getMessage());
                }
            } else {
                throw new UsageException(path + ": no such file or folder");
            }
        }
        if (suites.isEmpty()) {
            throw new UsageException("no " + SUITE_FILE + " under " + String.join(", ", paths));
        }
        return List.copyOf(suites);
    }

    private static boolean hidden(Path relative) {
        for (Path part : relative) {
            if (part.toString().startsWith(".") && !part.toString().equals(".")) {
                return true;
            }
        }
        return false;
    }
}

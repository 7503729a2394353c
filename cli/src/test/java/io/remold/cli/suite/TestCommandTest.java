package io.remold.cli.suite;

import io.remold.cli.Main;
import io.remold.cli.eval.ExamplesTest;
import io.remold.cli.eval.ExamplesTest.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * {@code remold test}: each case runs the suites of a folder under {@code suite/cases} and compares standard output
 * and error with golden files ({@code suite/goldens/NAME.out} and {@code .err}; {@code -Dremold.updateGolden=true}
 * rewrites them: review the diff), and the exit code with the table's.
 */
class TestCommandTest {
    private static final String DIR = "src/test/resources/io/remold/cli/suite/";

    /** One run: the folders under cases/, more arguments, the exit code it must give. */
    record Case(String name, List<String> folders, List<String> flags, int exit) {
        @Override
        public String toString() {
            return name;
        }

        String[] args() {
            var args = new ArrayList<String>(List.of("test"));
            folders.forEach(folder -> args.add(DIR + "cases/" + folder));
            args.addAll(flags);
            return args.toArray(String[]::new);
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                // CREATE, UPDATE, DELETE; namespace labels, user, reference and external data mocks; messages, warnings
                new Case("pass", List.of("pass"), List.of(), TestCommand.PASSED),
                // eval's bounds: a looping script is stopped by its statement limit
                new Case("script-limits", List.of("script-limits"), List.of(), TestCommand.PASSED),
                new Case("object-differs", List.of("object-differs"), List.of(), TestCommand.FAILED),
                new Case("verdict-differs", List.of("verdict-differs"), List.of(), TestCommand.FAILED),
                new Case("message-differs", List.of("message-differs"), List.of(), TestCommand.FAILED),
                new Case("warnings-differ", List.of("warnings-differ"), List.of(), TestCommand.FAILED),
                // every suite runs, in path order; the broken ones named on stderr, each with its file, line, field
                new Case("broken", List.of("pass", "broken"), List.of(), TestCommand.BROKEN),
                new Case("broken-and-failed", List.of("object-differs", "broken/unknown-field"), List.of(),
                        TestCommand.BROKEN),
                new Case("json", List.of("pass", "object-differs", "broken/wrong-type"), List.of("--output", "json"),
                        TestCommand.BROKEN));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void printsItsGoldenOutputAndExitCode(Case c) throws IOException {
        Run run = Run.of(Main::run, c.args());
        assertGolden(c.name() + ".out", run.out());
        assertGolden(c.name() + ".err", run.err());
        assertThat(run.err(), run.exit(), is(c.exit()));
    }

    /** The examples ship with suites: every one of them passes. */
    @Test
    void theExamplesSuitesAllPass() {
        Run run = Run.of(Main::run, "test", ExamplesTest.EXAMPLES.toString());
        assertThat(run.out() + run.err(), run.exit(), is(TestCommand.PASSED));
        assertThat(run.err(), is(emptyString()));
        assertThat(run.out(), not(containsString("FAIL")));
        // each family's examples have suites
        for (String family : List.of("rules ", "gatekeeper/", "references/", "external/", "scripts/", "kinitiras/",
                "kubemod-readme/", "kubemod-compat/")) {
            assertThat(family, run.out(), containsString("\n" + family));
        }
        long rows = run.out().lines().filter(line -> line.endsWith("PASS")).count();
        assertThat(rows, greaterThan(50L));
    }

    @Test
    void usageErrorsExitWithTwo() {
        Run none = Run.of(Main::run, "test", DIR + "rules");
        assertThat(none.exit(), is(TestCommand.BROKEN));
        assertThat(none.err(), containsString("remold test: no remold-test.yaml under " + DIR + "rules"));
        Run missing = Run.of(Main::run, "test", DIR + "no-such-folder");
        assertThat(missing.exit(), is(TestCommand.BROKEN));
        assertThat(missing.err(), containsString("no-such-folder: no such file or folder"));
        Run output = Run.of(Main::run, "test", DIR + "cases/pass", "--output", "xml");
        assertThat(output.exit(), is(TestCommand.BROKEN));
        assertThat(output.err(), containsString("--output expects text or json, got \"xml\" (argument 2)"));
        Run help = Run.of(Main::run, "test", "--help");
        assertThat(help.exit(), is(TestCommand.PASSED));
        assertThat(help.out(), containsString("usage: remold test"));
    }

    /** A suite file given by name runs whatever its name. */
    @Test
    void aSuiteFileRunsByName() {
        Run run = Run.of(Main::run, "test", DIR + "cases/pass/remold-test.yaml");
        assertThat(run.err(), run.exit(), is(TestCommand.PASSED));
        assertThat(run.out(), containsString("8 passed, 0 failed (1 suite)"));
    }

    @Test
    void docsTestingDocumentsEveryFlag() {
        assertThat(ExamplesTest.documentedFlags("testing.md"), equalTo(TestCommand.FLAGS));
    }

    private static void assertGolden(String name, String actual) throws IOException {
        Path golden = Path.of(DIR + "goldens/" + name);
        if (Boolean.getBoolean("remold.updateGolden")) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, actual);
        }
        assertThat(name + " (rerun with -Dremold.updateGolden=true and review the diff)", actual,
                equalTo(Files.readString(golden, StandardCharsets.UTF_8)));
    }
}

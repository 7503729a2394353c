package io.remold.cli.eval;

import io.remold.cli.eval.ExamplesTest.Run;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * {@code eval} with rules in every mode (modes/rules.yaml): the object is what the enforced rules make, Warn rules'
 * refusals are warnings with the exit code of an allowed request, and the Shadow rules' verdicts are a section of
 * their own on standard error, as text or (with {@code --output json}) as JSON. Golden files: modes/OUTPUT.out and
 * .err; {@code -Dremold.updateGolden=true} rewrites them.
 */
class ModesEvalTest {
    private static final String DIR = "/io/remold/cli/eval/modes/";

    @ParameterizedTest
    @CsvSource({"yaml", "json", "patch"})
    void shadowAndWarnRulesAreReportedAndChangeNothing(String output) throws IOException {
        Path dir = Files.createTempDirectory("modes");
        Path rules = copy(dir, "rules.yaml");
        Path pod = copy(dir, "pod.yaml");
        Run run = Run.of(EvalCommand::run, "--rules", rules.toString(), "--resource", pod.toString(), "--output",
                output);
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertGolden(output + ".out", run.out());
        assertGolden(output + ".err", run.err());
    }

    private static Path copy(Path dir, String name) throws IOException {
        try (InputStream in = ModesEvalTest.class.getResourceAsStream(DIR + name)) {
            Path file = dir.resolve(name);
            Files.write(file, in.readAllBytes());
            return file;
        }
    }

    private static void assertGolden(String name, String actual) throws IOException {
        Path golden = Path.of("src/test/resources" + DIR + name);
        if (Boolean.getBoolean("remold.updateGolden")) {
            Files.writeString(golden, actual);
        }
        assertThat(name, actual, equalTo(Files.readString(golden, StandardCharsets.UTF_8)));
    }
}

package io.remold.cli.eval;

import io.remold.cli.eval.ExamplesTest.Run;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * {@code eval --explain}'s field provenance, per family and output, and {@code --provenance-annotation}: golden
 * files provenance/NAME.out (standard output) and NAME.err (standard error) beside the rules;
 * {@code -Dremold.updateGolden=true} rewrites them.
 */
class ProvenanceEvalTest {
    static final String DIR = "src/test/resources/io/remold/cli/eval/provenance/";

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            // name, rules, flags
            "modrules, modrules.yaml, --explain",
            "modrules-json, modrules.yaml, --explain --output json",
            "families, families.yaml, --explain",
            "annotation, modrules.yaml, --provenance-annotation",
            "annotation-patch, families.yaml, --provenance-annotation --output patch",
    })
    void explainsEachChangedFieldAndAnnotatesAsTheServer(String name, String rules, String flags) throws IOException {
        var args = new ArrayList<>(List.of("--rules", DIR + rules, "--resource", DIR + "pod.yaml"));
        args.addAll(List.of(flags.split(" ")));
        Run run = Run.of(EvalCommand::run, args.toArray(String[]::new));
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertGolden(name + ".out", run.out());
        assertGolden(name + ".err", run.err());
    }

    static void assertGolden(String name, String actual) throws IOException {
        Path golden = Path.of(DIR + name);
        if (Boolean.getBoolean("remold.updateGolden")) {
            Files.writeString(golden, actual);
        }
        assertThat(name, actual, equalTo(Files.readString(golden, StandardCharsets.UTF_8)));
    }
}

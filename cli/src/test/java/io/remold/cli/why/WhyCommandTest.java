package io.remold.cli.why;

import io.remold.cli.eval.ExamplesTest.Run;
import io.remold.cli.preview.ClusterConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * {@code remold why} without a cluster ({@code --resource}): golden files provenance/why-NAME.out beside the rules
 * ({@code -Dremold.updateGolden=true} rewrites them).
 */
class WhyCommandTest {
    private static final String DIR = "src/test/resources/io/remold/cli/eval/provenance/";

    private static Run why(String... args) {
        return Run.of((a, out, err) -> WhyCommand.run(a, out, err, ClusterConnector.NONE), args);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            // name, resource, field, exit
            "annotated, annotated-pod.yaml, metadata.labels.team, 0",
            "inside-a-change, pod.yaml, /spec/containers/0/securityContext/runAsNonRoot, 0",
            "no-rule, annotated-pod.yaml, 'spec.containers[1].image', 1",
    })
    void namesTheRuleFromTheAnnotationAndTheRulesReEvaluated(String name, String resource, String field, int exit)
            throws IOException {
        Run run = why("--resource", DIR + resource, "--rules", DIR + "modrules.yaml", field);
        assertThat(run.err(), run.exit(), is(exit));
        assertThat(run.err(), is(""));
        Path golden = Path.of(DIR + "why-" + name + ".out");
        if (Boolean.getBoolean("remold.updateGolden")) {
            Files.writeString(golden, run.out());
        }
        assertThat(run.out(), equalTo(Files.readString(golden, StandardCharsets.UTF_8)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "metadata..labels | FIELD \"metadata..labels\": expected a JSON pointer (/metadata/labels/a) or a dotted"
                    + " path (metadata.labels.a, spec.containers[0].image); character 10 is not one",
            "'' | FIELD is empty",
    })
    void aFieldThatIsNeitherAPointerNorADottedPathIsRefused(String field, String error) {
        Run run = why("--resource", DIR + "pod.yaml", "--rules", DIR + "modrules.yaml", field == null ? "" : field);
        assertThat(run.exit(), is(WhyCommand.INPUT_ERROR));
        assertThat(run.err(), is("remold why: " + error + System.lineSeparator()));
    }

    @ParameterizedTest
    @CsvSource({"web", "pod/web", "apps//web", "Pod/"})
    void aTargetThatIsNotKindSlashNameIsRefusedBeforeAnyRequest(String target) {
        Run run = Run.of((a, out, err) -> WhyCommand.run(a, out, err, (kubeconfig, context, qps) -> {
            throw new AssertionError("connected");
        }), target, "metadata.labels.team", "--kubeconfig", "kubeconfig");
        assertThat(run.err(), run.exit(), is(WhyCommand.INPUT_ERROR));
        assertThat(run.err(), is("remold why: expected KIND/NAME (Pod/web, apps/Deployment/api), got \"" + target
                + "\"" + System.lineSeparator()));
    }

    @Test
    void aClusterObjectNeedsTheServersJar() {
        Run run = why("Pod/web", "metadata.labels.team", "-n", "default", "--kubeconfig", "kubeconfig");
        assertThat(run.exit(), is(WhyCommand.INPUT_ERROR));
        assertThat(run.err().startsWith("remold why: --kubeconfig needs the server's jar"), is(true));
    }

    @Test
    void everyFlagIsDocumentedAndEveryDocumentedFlagExists() throws IOException {
        String doc = Files.readString(Path.of("../docs/provenance.md"));
        int start = doc.indexOf("| Option |", doc.indexOf("## `remold why`"));
        Set<String> documented = new TreeSet<>();
        var flag = Pattern.compile("^\\| `(--[a-z-]+)", Pattern.MULTILINE).matcher(doc.substring(start));
        while (flag.find()) {
            documented.add(flag.group(1));
        }
        assertThat(documented, is(new TreeSet<>(WhyOptions.FLAGS)));
    }
}

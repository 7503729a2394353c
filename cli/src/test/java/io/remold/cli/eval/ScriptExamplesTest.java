package io.remold.cli.eval;

import io.remold.api.YamlJson;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

/** js-admissions-controller's examples ({@code examples/scripts}), unchanged manifests, through {@code eval}. */
class ScriptExamplesTest {
    private static final Path SCRIPTS = ExamplesTest.EXAMPLES.resolve("scripts");

    private record Run(int exit, String out, String err) {
    }

    private static Run eval(String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int exit = EvalCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static String file(String example, String name) {
        return SCRIPTS.resolve(example).resolve(name).toString();
    }

    @Test
    void sampleAddAnnotations() {
        Run run = eval("--rules", file("sample-add-annotations", "rule.yaml"), "--resource",
                file("sample-add-annotations", "input.yaml"), "--output", "patch");
        assertThat(run.err(), run.exit(), is(0));
        assertThat(run.out(), matchesPattern("(?s)\\[\\s*\\{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":"
                + "\\{\"jsadmissions/sample-add-annotation\":\"\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z\"}}\\s*]\\s*"));
    }

    @Test
    void theRemoldFormIsAModRuleOfTypeScript() {
        Run run = eval("--rules", file("remold-form", "rule.yaml"), "--resource", file("remold-form", "input.yaml"),
                "--output", "patch");
        assertThat(run.err(), run.exit(), is(0));
        assertThat(run.out(), containsString("{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"team\":\"default\"}}"));
    }

    /** As the server's option: a script rule of a namespace it does not name is refused (exit 2), with why. */
    @Test
    void tenantScriptsRefusesOtherNamespacesScriptsAsTheServerDoes() {
        String[] args = {"--rules", file("remold-form", "rule.yaml"), "--resource", file("remold-form", "input.yaml"),
                "--tenant-scripts", "team-b"};
        Run refused = eval(args);
        assertThat(refused.exit(), is(2));
        assertThat(refused.err(), containsString("are not enabled (the server's tenant-scripts option"));
        args[args.length - 1] = "*";
        assertThat(eval(args).exit(), is(0));
    }

    @Test
    void podLimitRefusesOnceTheSeededStateIsAtTheLimit() throws Exception {
        Run full = eval("--rules", file("pod-limit", "rule.yaml"), "--resource", file("pod-limit", "input.yaml"),
                "--state", file("pod-limit", "state.yaml"));
        assertThat(full.exit(), is(1));
        assertThat(full.err().strip(), is(Files.readString(Path.of(file("pod-limit", "rejected.txt"))).strip()));
        Run empty = eval("--rules", file("pod-limit", "rule.yaml"), "--resource", file("pod-limit", "input.yaml"));
        assertThat(empty.err(), empty.exit(), is(0));
    }

    @Test
    void sasNodeSelector() throws Exception {
        Run run = eval("--rules", file("sas-node-selector", "rule.yaml"), "--resource",
                file("sas-node-selector", "input.yaml"));
        assertThat(run.err(), run.exit(), is(0));
        String expected = Files.readString(Path.of(file("sas-node-selector", "expected.yaml")));
        assertThat(YamlJson.parse(run.out(), "stdout"), is(YamlJson.parse(expected, "expected.yaml")));
    }

    @Test
    void anInvalidScriptNamesFileFieldAndLine() throws Exception {
        Path rule = Files.createTempFile("script", ".yaml");
        Files.writeString(rule, """
                apiVersion: momiji.com/v1
                kind: JsAdmission
                metadata: {name: broken, namespace: team}
                spec:
                  js: |
                    function jsa_validate(op, object) { return; }
                """);
        Run run = eval("--rules", rule.toString(), "--resource", file("pod-limit", "input.yaml"));
        assertThat(run.exit(), is(2));
        assertThat(run.err(), containsString("document 1 (line 5, column 3): spec.js: jsa_validate: unknown parameter"
                + " object (expected some of op, obj, sync, state, in any order) at line 1 of the script"));
    }
}

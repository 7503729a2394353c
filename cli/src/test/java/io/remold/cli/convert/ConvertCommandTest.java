package io.remold.cli.convert;

import io.remold.api.YamlJson;
import io.remold.cli.eval.EvalCommand;
import io.remold.cli.eval.ExamplesTest;
import io.remold.cli.eval.ExamplesTest.Run;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * Golden files of {@code remold convert}: each folder of {@code examples/gatekeeper}, {@code examples/kinitiras}
 * and {@code examples/kubemod-compat} holds {@code converted.yaml} (the expected output) or, for a mutator without an exact
 * ModRule form, {@code refused.txt} (the expected stderr, the file named {@code rule.yaml}). Where a conversion is
 * produced, the original and the converted rules are both evaluated on the example's input (a KubeMod rule on the
 * files of its {@code kubemod-readme} twin) and must give the same result.
 */
class ConvertCommandTest {
    @TempDir
    Path temp;

    /** One example folder, and the folder that holds its input and references. */
    record Example(String name, Path folder, Path files) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Example> examples() {
        var out = new ArrayList<Example>();
        for (Path dir : ExamplesTest.folders(ExamplesTest.EXAMPLES.resolve("gatekeeper"))) {
            out.add(new Example("gatekeeper/" + dir.getFileName(), dir, dir));
        }
        for (Path dir : ExamplesTest.folders(ExamplesTest.EXAMPLES.resolve("kinitiras"))) {
            out.add(new Example("kinitiras/" + dir.getFileName(), dir, dir));
        }
        for (Path dir : ExamplesTest.folders(ExamplesTest.EXAMPLES.resolve("kubemod-compat"))) {
            out.add(new Example("kubemod-compat/" + dir.getFileName(), dir,
                    ExamplesTest.EXAMPLES.resolve("kubemod-readme").resolve(dir.getFileName())));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void convertsAsTheGoldenFileSaysAndBehavesTheSame(Example example) throws IOException {
        Run run = convert("--rules", example.folder().resolve("rule.yaml").toString());
        Path converted = example.folder().resolve("converted.yaml");
        Path refused = example.folder().resolve("refused.txt");
        if (Files.exists(refused)) {
            assertThat(run.exit(), is(ConvertCommand.NOT_ALL_CONVERTED));
            assertThat(run.err().replace(example.folder().resolve("rule.yaml").toString(), "rule.yaml"),
                    equalTo(Files.readString(refused)));
        } else {
            assertThat(run.err(), is(emptyString()));
            assertThat(run.exit(), is(ConvertCommand.CONVERTED));
        }
        if (!Files.exists(converted)) {
            assertThat(run.out(), is(emptyString()));
            return;
        }
        assertThat(run.out(), equalTo(Files.readString(converted)));
        Path written = temp.resolve("converted.yaml");
        Files.writeString(written, run.out());
        Run original = eval(example.folder().resolve("rule.yaml"), example.files());
        Run again = eval(written, example.files());
        assertThat(again.exit(), is(original.exit()));
        assertThat(again.err(), equalTo(original.err()));
        assertThat(data(again.out()), equalTo(data(original.out())));
    }

    @Test
    void everyFlagIsDocumentedAndEveryDocumentedFlagExists() {
        assertThat("docs/convert.md's flags", ExamplesTest.documentedFlags("convert.md"),
                equalTo(ConvertCommand.Options.FLAGS));
        ConvertCommand.Options.FLAGS.stream().filter(flag -> !flag.equals("--help"))
                .forEach(flag -> assertThat(ConvertCommand.USAGE, containsString(flag)));
    }

    @Test
    void unreadableOrInvalidInputIsExitTwoNamingTheProblem() throws IOException {
        Run missing = convert("--rules", temp.resolve("nope.yaml").toString());
        assertThat(missing.exit(), is(ConvertCommand.INPUT_ERROR));
        assertThat(missing.err(), containsString("no such file or folder"));

        Path bad = temp.resolve("bad.yaml");
        Files.writeString(bad, """
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata:
                  name: bad
                spec:
                  applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
                  location: "spec.containers[name: *"
                  parameters:
                    assign:
                      value: x
                """);
        Run invalid = convert("--rules", bad.toString());
        assertThat(invalid.exit(), is(ConvertCommand.INPUT_ERROR));
        assertThat(invalid.err(), containsString("remold convert: " + bad + ": document 1"));
        assertThat(invalid.err(), containsString("spec.location"));
        assertThat(invalid.out(), is(emptyString()));

        Run usage = convert("--rules", bad.toString(), "--output", "patch");
        assertThat(usage.exit(), is(ConvertCommand.INPUT_ERROR));
        assertThat(usage.err(), containsString("--output expects yaml or json"));
    }

    @Test
    void printsWhatConvertsAndNamesWhatDoesNot() throws IOException {
        Path rules = temp.resolve("mixed.yaml");
        Files.writeString(rules, """
                apiVersion: mutations.gatekeeper.sh/v1
                kind: AssignMetadata
                metadata: {name: team}
                spec:
                  location: metadata.labels.team
                  parameters: {assign: {value: platform}}
                ---
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata: {name: lookup}
                spec:
                  applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
                  location: spec.priorityClassName
                  parameters:
                    assign:
                      externalData: {provider: classes, dataSource: Username}
                ---
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata: {name: anywhere}
                spec:
                  applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
                  location: spec.priorityClassName
                  parameters:
                    assign:
                      externalData: {provider: classes}
                """);
        Run run = convert("--rules", rules.toString(), "--output", "json");
        assertThat(run.exit(), is(ConvertCommand.NOT_ALL_CONVERTED));
        assertThat(run.err(), equalTo("remold convert: " + rules + ": document 2: Assign/lookup: cannot convert: "
                + "spec.parameters.assign.externalData.dataSource: Username sends the requesting user's name, which"
                + " a ModRule template cannot see" + System.lineSeparator()
                + "remold convert: " + rules + ": document 3: Assign/anywhere: cannot convert: "
                + "spec.parameters.assign.externalData: without a MustExist path test on the location, Gatekeeper"
                + " also assigns where nothing is set (asking for the key \"\"), which a template reading the value"
                + " there cannot ask; add pathTests [{subPath: spec.priorityClassName, condition: MustExist}]"
                + System.lineSeparator()));
        assertThat(run.out(), containsString("\"name\": \"assignmetadata-team\""));
    }

    /** Where a later mutator writes what an earlier one reads, Gatekeeper re-runs the earlier: both are refused. */
    @Test
    void mutatorsThatFeedEachOtherAreRefused() throws IOException {
        Path rules = temp.resolve("set.yaml");
        Files.writeString(rules, """
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata: {name: a-pull}
                spec:
                  applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
                  location: "spec.containers[name: *].imagePullPolicy"
                  parameters: {assign: {value: Always}}
                ---
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata: {name: b-containers}
                spec:
                  applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
                  location: spec.containers
                  parameters: {assign: {value: [{name: only}]}}
                """);
        Run run = convert("--rules", rules.toString());
        assertThat(run.exit(), is(ConvertCommand.NOT_ALL_CONVERTED));
        assertThat(run.err(), containsString("Assign/a-pull: cannot convert: Assign/b-containers writes"
                + " spec.containers, which Assign/a-pull (earlier in Gatekeeper's order) reads"));
        assertThat(run.err(), containsString("Assign/b-containers: cannot convert:"));
        assertThat(run.out(), is(emptyString()));
    }

    /**
     * kinitiras policies: the override policies that convert take tiers after the mutators, in kinitiras's order; one
     * that does not is named with the field; and the converted rules patch the object as the policies do.
     */
    @Test
    void convertsKinitirasPoliciesAndNamesWhatDoesNot() throws IOException {
        Path rules = temp.resolve("kinitiras.yaml");
        Files.writeString(rules, """
                {apiVersion: policy.kcloudlabs.io/v1alpha1, kind: OverridePolicy, metadata: {name: tenant, namespace: shop},
                  spec: {overrideRules: [{overriders: {template: {type: annotations, operation: add, path: tenant,
                    value: {string: shop}}}}]}}
                ---
                {apiVersion: policy.kcloudlabs.io/v1alpha1, kind: ClusterOverridePolicy, metadata: {name: team}, spec: {
                  resourceSelectors: [{apiVersion: v1, kind: Pod, labelSelector: {matchLabels: {app: web}}}],
                  overrideRules: [{overriders: {
                    template: {type: labels, operation: replace, path: team, value: {string: blue}},
                    plaintext: [{op: add, path: /metadata/labels/seen, value: "yes"}]}}]}}
                ---
                {apiVersion: policy.kcloudlabs.io/v1alpha1, kind: ClusterValidatePolicy, metadata: {name: owner}, spec: {
                  validateRules: [{template: {type: condition, condition: {cond: Equal, message: m,
                    dataRef: {from: current, path: /spec/nodeName}, value: {string: x}}}}]}}
                ---
                {apiVersion: mutations.gatekeeper.sh/v1, kind: AssignMetadata, metadata: {name: team},
                  spec: {location: metadata.labels.owner, parameters: {assign: {value: platform}}}}
                """);
        Run run = convert("--rules", rules.toString());
        assertThat(run.exit(), is(ConvertCommand.NOT_ALL_CONVERTED));
        assertThat(run.err(), equalTo("remold convert: " + rules + ": document 3: ClusterValidatePolicy/owner:"
                + " cannot convert: spec.validateRules[0].template.condition.dataRef.path: Equal on a field that may"
                + " hold another type than text fails kinitiras's evaluation there, which a match item cannot do;"
                + " only the name, namespace, generateName, labels, annotations, apiVersion and kind are compared"
                + System.lineSeparator()));
        var names = new ArrayList<String>();
        for (JsonValue rule : YamlJson.parse(run.out(), "output")) {
            names.add(rule.asJsonObject().getJsonObject("metadata").getString("name") + " "
                    + rule.asJsonObject().getJsonObject("spec").getInt("executionTier", 0));
        }
        assertThat(names, equalTo(List.of("overridepolicy-tenant-1 1004", "overridepolicy-tenant-2 1005",
                "clusteroverridepolicy-team-1 1001", "clusteroverridepolicy-team-2 1002",
                "clusteroverridepolicy-team-3 1003", "assignmetadata-team 1000")));

        Path converted = temp.resolve("converted.yaml");
        Files.writeString(converted, run.out());
        Path input = temp.resolve("input.yaml");
        Files.writeString(input, """
                {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: shop, labels: {app: web}}, spec: {}}
                """);
        Run original = Run.of(EvalCommand::run, "--rules", rules.toString(), "--resource", input.toString());
        Run again = Run.of(EvalCommand::run, "--rules", converted.toString(), "--resource", input.toString());
        assertThat(again.exit(), is(original.exit()));
        assertThat(data(again.out()), equalTo(data(original.out())));
        assertThat(again.out(), containsString("tenant: shop"));
    }

    private static JsonValue data(String yaml) {
        return yaml.isEmpty() ? JsonValue.NULL : YamlJson.parse(yaml, "output").getFirst();
    }

    static Run convert(String... args) {
        return Run.of(ConvertCommand::run, args);
    }

    private static Run eval(Path rules, Path files) {
        // KubeMod's originals sit in kubemod-system: evaluated as a server with kubemod-compat runs them
        var args = new ArrayList<>(List.of("--rules", rules.toString(), "--resource",
                files.resolve("input.yaml").toString(), "--kubemod-system-namespace", "kubemod-system"));
        for (String[] ref : new String[][] {{"old.yaml", "--old", ""}, {"namespace.yaml", "--ref", "namespace="},
                {"node.yaml", "--ref", "node="}}) {
            if (Files.exists(files.resolve(ref[0]))) {
                args.add(ref[1]);
                args.add(ref[2] + files.resolve(ref[0]));
            }
        }
        args.addAll(ExamplesTest.externals(files));
        return Run.of(EvalCommand::run, args.toArray(String[]::new));
    }
}

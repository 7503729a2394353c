package io.remold.cli.eval;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/** kinitiras policies through {@code eval} beyond the golden files of {@code examples/kinitiras}. */
class KinitirasEvalTest {
    private static final Path EXAMPLE = ExamplesTest.EXAMPLES.resolve("kinitiras/addanno-op");

    @Test
    void explainSaysWhatEachPolicyDid() {
        var run = ExamplesTest.Run.of(EvalCommand::run, "--rules", EXAMPLE.resolve("rule.yaml").toString(),
                "--resource", EXAMPLE.resolve("cases/labelled-pod-with-annotations/input.yaml").toString(),
                "--explain", "--output", "patch");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.err(), containsString("kinitiras override policies (after the mutators: cluster ones, then"
                + " the namespaced ones, by name):\n  OverridePolicy/default/add-anno-op-plaintext: changed the object, "
                + "[{\"op\":\"add\",\"path\":\"/metadata/annotations/added-by\",\"value\":\"op\"}]"));
        var other = ExamplesTest.Run.of(EvalCommand::run, "--rules", EXAMPLE.resolve("rule.yaml").toString(),
                "--resource", EXAMPLE.resolve("cases/another-namespace/input.yaml").toString(), "--explain");
        assertThat(other.err(), containsString("  OverridePolicy/default/add-anno-op-plaintext: not applied: an"
                + " OverridePolicy changes only objects of its own namespace"));
        var unlabelled = ExamplesTest.Run.of(EvalCommand::run, "--rules", EXAMPLE.resolve("rule.yaml").toString(),
                "--resource", EXAMPLE.resolve("cases/unlabelled-pod/input.yaml").toString(), "--explain",
                "--kinitiras-webhook-label");
        assertThat(unlabelled.err(), containsString("  OverridePolicy/default/add-anno-op-plaintext: not applied:"
                + " kinitiras's webhook configuration would not send it: neither the object nor the old object is"
                + " labelled kinitiras.kcloudlabs.io/webhook: enabled (--kinitiras-webhook-label)"));
    }

    /**
     * The order of one request (docs/kinitiras.md): the ModRules, then Gatekeeper's mutators, then the kinitiras
     * policies, each seeing what the ones before did; here each step selects on the label the previous one set.
     */
    @Test
    void policiesRunAfterTheModRulesAndTheMutators() throws Exception {
        var run = evalOnAPod("""
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: ClusterOverridePolicy
                metadata: {name: third}
                spec:
                  resourceSelectors:
                  - {apiVersion: v1, kind: Pod, labelSelector: {matchLabels: {second: "yes"}}}
                  overrideRules:
                  - overriders:
                      plaintext: [{path: /metadata/labels/third, op: add, value: "yes"}]
                ---
                apiVersion: mutations.gatekeeper.sh/v1
                kind: AssignMetadata
                metadata: {name: second}
                spec:
                  match:
                    scope: Namespaced
                    labelSelector: {matchLabels: {first: "yes"}}
                  location: metadata.labels.second
                  parameters: {assign: {value: "yes"}}
                ---
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: first, namespace: default}
                spec:
                  type: Patch
                  match: [{select: '$.kind', matchValue: Pod}]
                  patch: [{op: add, path: /metadata/labels, value: '{"first": "yes"}'}]
                """, "--output", "json");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        var labels = ExamplesTest.yaml(run.out()).asJsonObject().getJsonObject("metadata").getJsonObject("labels");
        assertThat(labels, is(ExamplesTest.yaml("{first: \"yes\", second: \"yes\", third: \"yes\"}")));
    }

    /** Hand-written CUE runs on cuelang.org/go itself, in the worker process. */
    @Test
    void aCuePolicyRunsOnCuelangItself() throws Exception {
        var run = evalOnAPod("""
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: ClusterOverridePolicy
                metadata: {name: by-cue}
                spec:
                  overrideRules:
                  - overriders:
                      cue: 'patches: [{op: "add", path: "/spec/schedulerName", value: "y"}]'
                """, "--output", "patch");
        assertThat(run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.err(), is(""));
        assertThat(run.out().replaceAll("\\s", ""), is("[{\"op\":\"add\",\"path\":\"/spec/schedulerName\",\"value\":\"y\"}]"));
    }

    @Test
    void anInvalidPolicyNamesFileDocumentAndField() throws Exception {
        var run = evalOnAPod("""
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: ClusterOverridePolicy
                metadata: {name: broken}
                spec:
                  overrideRules:
                  - overriders:
                      origin: [{type: labels, operation: merge}]
                """);
        assertThat(run.exit(), is(2));
        assertThat(run.err(), containsString("document 1"));
        assertThat(run.err(), containsString("spec.overrideRules[0].overriders.origin[0].operation: must be add,"
                + " remove or replace"));
    }

    /**
     * {@code --cluster} answers a ModRule's reference that has no {@code --ref} file, by kind, namespace and name as
     * the server's caches do; a {@code --ref} file still wins.
     */
    @Test
    void clusterObjectsAnswerModRuleReferencesWithoutARefFile() throws IOException {
        Path example = ExamplesTest.EXAMPLES.resolve("references/team-settings");
        Path cluster = Files.createTempFile("cluster", ".yaml");
        Files.writeString(cluster, """
                apiVersion: v1
                kind: List
                items:
                - {apiVersion: v1, kind: ConfigMap, metadata: {name: team-payments, namespace: other}, data: {costCentre: no}}
                - {apiVersion: v1, kind: Secret, metadata: {name: team-payments, namespace: shop}, data: {costCentre: no}}
                - {apiVersion: v1, kind: ConfigMap, metadata: {name: team-payments, namespace: shop}, data: {costCentre: cc-1}}
                """);
        var run = ExamplesTest.Run.of(EvalCommand::run, "--rules", example.resolve("rule.yaml").toString(),
                "--resource", example.resolve("input.yaml").toString(), "--cluster", cluster.toString(), "--explain");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.err(), containsString("reference settings: v1 ConfigMap shop/team-payments: found (--cluster "
                + cluster + ")"));
        assertThat(labels(run.out()).getString("cost-centre"), is("cc-1"));

        var ref = ExamplesTest.Run.of(EvalCommand::run, "--rules", example.resolve("rule.yaml").toString(),
                "--resource", example.resolve("input.yaml").toString(), "--cluster", cluster.toString(),
                "--ref", "settings=" + example.resolve("refs/settings.yaml"));
        assertThat(ref.err(), ref.exit(), is(EvalCommand.ALLOWED));
        assertThat(labels(ref.out()).getString("cost-centre"), is("cc-4711"));
    }

    /**
     * A k8s valueRef selects by labels rendered from the object, in the policy's own namespace only; an http one is
     * answered for its URL (its params aside) and any other URL fails the policy, which refuses the request.
     */
    @Test
    void clusterAndHttpAnswerValueRefsAndNothingElseIsCalled() throws IOException {
        String policy = """
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: OverridePolicy
                metadata: {name: refs, namespace: default}
                spec:
                  overrideRules:
                  - overriders:
                      template:
                        type: annotations
                        operation: replace
                        path: owner
                        valueRef:
                          from: k8s
                          path: /metadata/name
                          k8s: {apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {app: '{{metadata.name}}'}}}
                  - overriders:
                      template:
                        type: annotations
                        operation: replace
                        path: zone
                        valueRef:
                          from: http
                          path: body.zone
                          http: {url: '%s', params: {pod: '{{metadata.name}}'}}
                """;
        Path cluster = Files.createTempFile("cluster", ".yaml");
        Files.writeString(cluster, """
                {apiVersion: apps/v1, kind: Deployment, metadata: {name: elsewhere, namespace: other, labels: {app: %s}}}
                ---
                {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, labels: {app: %s}}}
                """.formatted(podName(), podName()));
        Path body = Files.createTempFile("zone", ".json");
        Files.writeString(body, "{\"zone\": \"eu-1\"}");
        var run = evalOnAPod(policy.formatted("https://zones.example/lookup?v=1"), "--cluster", cluster.toString(),
                "--http", "https://zones.example/lookup?v=1=" + body, "--output", "json");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        var annotations = ExamplesTest.yaml(run.out()).asJsonObject().getJsonObject("metadata")
                .getJsonObject("annotations");
        assertThat(annotations, is(ExamplesTest.yaml("{team: shop, owner: web, zone: eu-1}")));

        var other = evalOnAPod(policy.formatted("https://attacker.example/"), "--cluster", cluster.toString(),
                "--http", "https://zones.example/lookup?v=1=" + body);
        assertThat(other.exit(), is(EvalCommand.REJECTED));
        assertThat(other.err(), containsString("OverridePolicy/default/refs: \"http valueRef https://attacker.example/:"
                + " no answer (no --http https://attacker.example/=FILE; eval never calls out)\""));

        // With the server's --allow-http-ref, eval answers as the server would: the URL under no prefix keeps the
        // policy out of force (the server's Ready=False), one under a prefix is answered from its file.
        var notInForce = evalOnAPod(policy.formatted("https://attacker.example/"), "--cluster", cluster.toString(),
                "--http", "https://attacker.example/=" + body, "--allow-http-ref", "https://zones.example/lookup",
                "--output", "json");
        assertThat(notInForce.err(), notInForce.exit(), is(EvalCommand.ALLOWED));
        assertThat(notInForce.err(), containsString("is not in force: spec.overrideRules[1].overriders.template"
                + ".valueRef.http.url: http valueRef https://attacker.example/: not under a URL prefix the server"
                + " allows (--allow-http-ref https://zones.example/lookup)"));
        assertThat(ExamplesTest.yaml(notInForce.out()).asJsonObject().getJsonObject("metadata")
                .getJsonObject("annotations"), is(ExamplesTest.yaml("{team: shop}")));
        var allowed = evalOnAPod(policy.formatted("https://zones.example/lookup?v=1"), "--cluster", cluster.toString(),
                "--http", "https://zones.example/lookup?v=1=" + body, "--allow-http-ref",
                "http://other.example,https://zones.example/lookup", "--output", "json");
        assertThat(allowed.err(), allowed.exit(), is(EvalCommand.ALLOWED));
        assertThat(ExamplesTest.yaml(allowed.out()).asJsonObject().getJsonObject("metadata")
                .getJsonObject("annotations").getString("zone"), is("eu-1"));
    }

    /**
     * CUE's {@code processing.http} task is answered by {@code --http} as an http valueRef is; its URL, known only at
     * request time, is checked then against {@code --allow-http-ref} as the server checks it.
     */
    @Test
    void httpAnswersACueProcessingTaskUnderTheAllowedPrefixesOnly() throws IOException {
        Path body = Files.createTempFile("name", ".json");
        Files.writeString(body, "{\"name\": \"n1\"}");
        String policy = """
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: ClusterOverridePolicy
                metadata: {name: by-cue}
                spec:
                  overrideRules:
                  - overriders:
                      cue: |
                        processing: http: {method: "GET", url: "http://names/?a=b"}
                        patches: [{op: "add", path: "/metadata/annotations/name", value: processing.output.name}]
                """;
        var run = evalOnAPod(policy, "--http", "http://names/?a=b=" + body, "--output", "patch");
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(run.out().strip(), is("[\n  {\"op\":\"add\",\"path\":\"/metadata/annotations/name\",\"value\":\"n1\"}\n]"));

        var elsewhere = evalOnAPod(policy, "--http", "http://names/?a=b=" + body, "--allow-http-ref",
                "http://names/api");
        assertThat(elsewhere.exit(), is(EvalCommand.REJECTED));
        assertThat(elsewhere.err(), containsString("http valueRef http://names/?a=b: not under a URL prefix the"
                + " server allows (--allow-http-ref http://names/api)"));
    }

    @Test
    void httpNeedsAUrlAndAFileAndAllowedPrefixesAreUrls() throws IOException {
        String none = "{apiVersion: policy.kcloudlabs.io/v1alpha1, kind: ClusterOverridePolicy, metadata: {name: none},"
                + " spec: {overrideRules: []}}";
        for (String value : List.of("no-equals-sign", "=file.json")) {
            var run = evalOnAPod(none, "--http", value);
            assertThat(run.exit(), is(2));
            assertThat(run.err(), containsString("--http expects URL=FILE, got \"" + value + "\""));
        }
        var missing = evalOnAPod(none, "--http",
                "https://x=/no/such/file.json");
        assertThat(missing.exit(), is(2));
        assertThat(missing.err(), containsString("--http https://x /no/such/file.json: cannot read"));
        var prefix = evalOnAPod(none, "--allow-http-ref", "http://user@names/");
        assertThat(prefix.exit(), is(2));
        assertThat(prefix.err(), containsString("--allow-http-ref http://user@names/: a URL with user info"));
    }

    private static JsonObject labels(String yaml) {
        return ExamplesTest.yaml(yaml).asJsonObject().getJsonObject("metadata").getJsonObject("labels");
    }

    private static String podName() throws IOException {
        return ExamplesTest.yaml(Files.readString(EXAMPLE.resolve("cases/unlabelled-pod/input.yaml"))).asJsonObject()
                .getJsonObject("metadata").getString("name");
    }

    /** {@code eval} of the rules text on a Pod of {@code default} without labels, with more flags. */
    private static ExamplesTest.Run evalOnAPod(String rules, String... flags) throws IOException {
        Path file = Files.createTempFile("rules", ".yaml");
        Files.writeString(file, rules);
        var args = new ArrayList<>(List.of("--rules", file.toString(), "--resource",
                EXAMPLE.resolve("cases/unlabelled-pod/input.yaml").toString()));
        args.addAll(List.of(flags));
        return ExamplesTest.Run.of(EvalCommand::run, args.toArray(String[]::new));
    }
}

package io.remold.e2e;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

/**
 * Issue 26: kinitiras's policies in cluster mode. The bundle's CRDs ({@code --kinitiras-compat}) serve kinitiras's
 * examples applied unchanged with kubectl; the server reads them through its informers, mutates pods with them and
 * refuses a labelled Namespace's deletion; a broken policy is refused at admission with CUE's message; a hostile CUE
 * policy fails only the request it runs for.
 */
@ExtendWith(Remold.class)
class KinitirasIT {
    private static final String NAMESPACE = "e2e-kinitiras";
    private static final Path EXAMPLES = Cluster.REPO.resolve("../shared/conformance/kinitiras/kinitiras/examples")
            .normalize();
    private static final String WEBHOOK_LABEL = "kinitiras.kcloudlabs.io/webhook";

    @Test
    void examplesAppliedUnchangedMutatePodsAndRefuseTheLabelledNamespacesDeletion() {
        Steps.ensureNamespace(NAMESPACE);
        String keep = "e2e-kinitiras-keep";
        String gone = "e2e-kinitiras-gone";
        Cluster.apply("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + keep + "\n  labels:\n    "
                + WEBHOOK_LABEL + ": enabled\n");
        Steps.ensureNamespace(gone);
        List<String> examples = List.of("addanno-cop.yaml", "addanno-op.yaml", "deletens-cvp.yaml");
        var apply = new ArrayList<>(List.of("apply"));
        examples.forEach(file -> apply.addAll(List.of("-f", EXAMPLES.resolve(file).toString())));
        Cluster.kubectl(apply.toArray(String[]::new)).run().orFail();
        try {
            // The ClusterOverridePolicy adds the annotations (CUE), then the default namespace's OverridePolicy
            // overwrites added-by (plaintext): cluster policies first, as kinitiras's override manager.
            Wait.until("both override policies to mutate a labelled pod", Duration.ofSeconds(30),
                    () -> "op".equals(annotation(pod("default", "dry", WEBHOOK_LABEL + ": enabled", "--dry-run=server"),
                            "added-by")));
            Wait.until("the ClusterValidatePolicy to refuse the labelled namespace's deletion", Duration.ofSeconds(30),
                    () -> !Cluster.kubectl("delete", "namespace", keep, "--dry-run=server").run().ok());
            for (String policy : List.of("clusteroverridepolicy/add-anno-cop-cue",
                    "clustervalidatepolicy/test-delete-ns")) {
                assertReady(policy, null);
            }
            assertReady("overridepolicy/add-anno-op-plaintext", "default");

            assertThat(annotation(createPod("default", "web", true), "added-by"), equalTo("op"));
            assertThat(annotation(createPod(NAMESPACE, "web", true), "added-by"), equalTo("cue"));
            assertThat(annotation(createPod(NAMESPACE, "plain", false), "added-by"), equalTo(""));
            assertThat(stored("pod", "default", "web", "{.metadata.annotations.added-by}"), equalTo("op"));
            assertThat(stored("pod", NAMESPACE, "web", "{.metadata.annotations.added-by}"), equalTo("cue"));

            var refused = Cluster.kubectl("delete", "namespace", keep, "--wait=false").run();
            assertThat("the labelled namespace's deletion must be refused\n" + refused, refused.ok(), is(false));
            assertThat(refused.stderr(), containsString("operation rejected"));
            assertThat(stored("namespace", null, keep, "{.status.phase}"), equalTo("Active"));
            // The example's CUE reads the label without checking that it exists: on a namespace without it (every
            // namespace has labels) the evaluation fails, and a failed validation refuses, as in kinitiras. kinitiras's
            // webhook never sends such a namespace (its objectSelector wants the label); Remold's does
            // (docs/compatibility.md, "Which objects reach the policies").
            var unlabelled = Cluster.kubectl("delete", "namespace", gone, "--wait=false").run();
            assertThat("the example's CUE fails on an unlabelled namespace\n" + unlabelled, unlabelled.ok(), is(false));
            assertThat(unlabelled.stderr(), containsString("ClusterValidatePolicy/test-delete-ns"));
            assertThat(unlabelled.stderr(), containsString("undefined field: \"" + WEBHOOK_LABEL + "\""));
        } finally {
            for (String namespace : List.of("default", NAMESPACE)) {
                Cluster.kubectl("delete", "pod", "web", "plain", "-n", namespace, "--ignore-not-found",
                        "--wait=false", "--grace-period=0", "--force").run();
            }
            var delete = new ArrayList<>(apply);
            delete.set(0, "delete");
            delete.add("--ignore-not-found");
            Cluster.kubectl(delete.toArray(String[]::new)).run().orFail();
            Cluster.kubectl("label", "namespace", keep, WEBHOOK_LABEL + "-").run();
        }
        Wait.until("the unlabelled namespace's deletion once the policy is gone", Duration.ofSeconds(30),
                () -> Cluster.kubectl("delete", "namespace", gone, "--wait=false", "--ignore-not-found").run().ok());
    }

    @Test
    void aBrokenPolicyIsRefusedAtAdmissionWithTheFieldAndCuesPosition() {
        Steps.ensureNamespace(NAMESPACE);
        var broken = Cluster.kubectl("apply", "-f", "-").withInput("""
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: OverridePolicy
                metadata:
                  name: e2e-broken-cue
                  namespace: e2e-kinitiras
                spec:
                  overrideRules:
                    - overriders:
                        cue: |-
                          patches: [
                            {op: "add"
                """).run();
        assertThat("kubectl apply must fail\n" + broken, broken.ok(), is(false));
        assertThat(broken.stderr(), containsString("spec.overrideRules[0].overriders.cue"));
        assertThat(broken.stderr(), matchesPattern("(?s).*\\(at \\d+:\\d+\\).*"));
        assertThat(Cluster.kubectl("get", "overridepolicy", "e2e-broken-cue", "-n", NAMESPACE).run().ok(), is(false));

        // kinitiras's shipped pab example: its fields are not in kinitiras's own CRD, which refuses it (kubectl's
        // strict field validation for the unknown podAvailableBadge; without it, the schema for the type "pab")
        String pabFile = EXAMPLES.resolve("templates/validate-pab.yaml").toString();
        var pab = Cluster.kubectl("apply", "-f", pabFile).run();
        assertThat("the API server must refuse the pab example\n" + pab, pab.ok(), is(false));
        var pabUnchecked = Cluster.kubectl("apply", "--validate=false", "-f", pabFile).run();
        assertThat("the API server must refuse the pab example\n" + pabUnchecked, pabUnchecked.ok(), is(false));
        assertThat(pabUnchecked.stderr(), containsString("Unsupported value: \"pab\""));
    }

    /**
     * Hostile CUE fails alone. A policy of endless steps in little memory (only the deadline stops it) holds one CUE
     * worker while requests that a benign CUE policy mutates go to the other: they are admitted and mutated, the
     * hostile one refused naming its policy. Then a huge list (stopped by the bound it meets first: here the 1 s
     * deadline, before the memory bound) is refused the same way, and the next benign request is served. The policies
     * are the administrator's (cluster kinds), so one of them holds at most all workers but one; how tenants'
     * policies share the workers is CueWorkersTest's (the fair share).
     */
    @Test
    void aHostileCuePolicyFailsOnlyTheRequestItRunsFor() {
        Steps.ensureNamespace(NAMESPACE);
        String policies = hostile("e2e-endless", "endless", """
                import "list"
                n: len([for i in list.Range(0, 4000, 1) for j in list.Range(0, 4000, 1) if i*j == -1 {1}])
                patches: [{op: "add", path: "/metadata/labels/n", value: "\\(n)"}]""")
                + "---\n" + hostile("e2e-huge", "huge", """
                import "list"
                n: len(list.Repeat([1], 100000000))
                patches: [{op: "add", path: "/metadata/labels/n", value: "\\(n)"}]""")
                + "---\n" + hostile("e2e-benign", "benign", """
                patches: [{op: "add", path: "/metadata/labels/checked", value: "yes"}]""");
        Cluster.apply(policies);
        List<String> benign = IntStream.range(0, 6).mapToObj(i -> "benign-" + i).toList();
        try {
            Wait.until("the benign CUE policy to mutate a pod", Duration.ofSeconds(30), () -> "yes".equals(
                    label(podWithLabel("benign", "benign-dry", "--dry-run=server"), "checked")));

            CompletableFuture<Command.Result> endless;
            List<CompletableFuture<Command.Result>> admitted;
            try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
                endless = CompletableFuture.supplyAsync(() -> podWithLabel("endless", "endless"), threads);
                admitted = benign.stream().map(name -> CompletableFuture.supplyAsync(
                        () -> podWithLabel("benign", name), threads)).toList();
            }
            for (var pod : admitted) {
                assertMutated(pod.join());
            }
            assertRefused(endless.join(), "e2e-endless");
            assertRefused(podWithLabel("huge", "huge"), "e2e-huge");
            assertMutated(podWithLabel("benign", "benign-after"));
            for (String name : benign) {
                assertThat(stored("pod", NAMESPACE, name, "{.metadata.labels.checked}"), equalTo("yes"));
            }
        } finally {
            Cluster.kubectl("delete", "pods", "-n", NAMESPACE, "-l", "e2e-cue", "--ignore-not-found",
                    "--wait=false", "--grace-period=0", "--force").run();
            Cluster.kubectl("delete", "-f", "-", "--ignore-not-found").withInput(policies).run().orFail();
        }
    }

    private static void assertMutated(Command.Result pod) {
        assertThat("a benign pod must be admitted beside the hostile ones\n" + pod, pod.ok(), is(true));
        assertThat(pod.stdout(), label(pod, "checked"), equalTo("yes"));
    }

    private static void assertRefused(Command.Result pod, String policy) {
        assertThat("the pod of the hostile policy " + policy + " must be refused\n" + pod, pod.ok(), is(false));
        assertThat(pod.stderr(), containsString("ClusterOverridePolicy/" + policy));
    }

    /** A ClusterOverridePolicy whose CUE runs for the pods of {@value #NAMESPACE} labelled {@code e2e-cue: which}. */
    private static String hostile(String name, String which, String cue) {
        return """
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: ClusterOverridePolicy
                metadata:
                  name: %s
                spec:
                  resourceSelectors:
                    - apiVersion: v1
                      kind: Pod
                      namespace: %s
                      labelSelector:
                        matchLabels:
                          e2e-cue: %s
                  overrideRules:
                    - targetOperations: [CREATE]
                      overriders:
                        cue: |
                %s
                """.formatted(name, NAMESPACE, which, cue.indent(10).stripTrailing());
    }

    private static Command.Result podWithLabel(String which, String name, String... flags) {
        return pod(NAMESPACE, name, "e2e-cue: " + which, flags);
    }

    private static Command.Result createPod(String namespace, String name, boolean labelled, String... flags) {
        return pod(namespace, name, labelled ? WEBHOOK_LABEL + ": enabled" : "app: plain", flags).orFail();
    }

    /** kubectl create of a pod with one label, printed as JSON (the object as stored, or as it would be). */
    private static Command.Result pod(String namespace, String name, String label, String... flags) {
        var argv = new ArrayList<>(List.of("create", "-f", "-", "-o", "json"));
        argv.addAll(List.of(flags));
        return Cluster.kubectl(argv.toArray(String[]::new)).withInput("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                  labels:
                    %s
                spec:
                  containers:
                    - name: app
                      image: busybox:1.36
                """.formatted(name, namespace, label)).run();
    }

    private static String annotation(Command.Result pod, String key) {
        return member(pod, "annotations", key);
    }

    private static String label(Command.Result pod, String key) {
        return member(pod, "labels", key);
    }

    /** A string member of the created pod's metadata.labels or .annotations, or "" without one. */
    private static String member(Command.Result pod, String map, String key) {
        if (!pod.ok()) {
            return "";
        }
        JsonObject metadata = JsonParser.parseString(pod.stdout()).getAsJsonObject().getAsJsonObject("metadata");
        JsonObject members = metadata.getAsJsonObject(map);
        return members == null || !members.has(key) ? "" : members.get(key).getAsString();
    }

    private static String stored(String kind, String namespace, String name, String jsonPath) {
        var argv = new ArrayList<>(List.of("get", kind, name, "-o", "jsonpath=" + jsonPath));
        if (namespace != null) {
            argv.addAll(List.of("-n", namespace));
        }
        return Cluster.kubectl(argv.toArray(String[]::new)).run().orFail().stdout();
    }

    /** The leader writes Ready into the status subresource the bundle's CRDs add to kinitiras's. */
    private static void assertReady(String policy, String namespace) {
        Wait.until(policy + " to be Ready", Duration.ofSeconds(30), () -> "True".equals(stored(
                policy.substring(0, policy.indexOf('/')), namespace, policy.substring(policy.indexOf('/') + 1),
                "{.status.conditions[?(@.type==\"Ready\")].status}")));
    }
}

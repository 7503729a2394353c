package io.remold.e2e;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Binding;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * Scenario 5, node references: a Pod created with kubectl gets the inject-node-ref annotation (CREATE rule); when
 * it is bound to a Node through pods/binding, as the scheduler does, the server annotates it with the node's name
 * and that UPDATE carries the Node in syntheticRefs.node, so the node's topology labels are copied onto the Pod.
 * The label-copying rule runs in its Remold rewrite and as KubeMod's original (api.kubemod.io, Go templates).
 * (Namespace synthetic references: the add-flavor-label case of {@link ReadmeExamplesIT}.)
 */
@ExtendWith(Remold.class)
class NodeReferencesIT {
    private static final Path INJECT_REF = Remold.example("inject-node-ref-annotation");
    private static final Path COPY_LABELS = Remold.example("inject-node-annotations");

    @ParameterizedTest
    @ValueSource(strings = {"examples/kubemod-readme/inject-node-annotations/rule.yaml",
            "examples/kubemod-compat/inject-node-annotations/rule.yaml"})
    void aPodBoundToANodeGetsTheNodesLabels(String copyLabelsRule, Remold.Installation remold)
            throws ApiException, IOException {
        var pod = Manifest.read(INJECT_REF.resolve("input.yaml"));
        var node = Manifest.read(COPY_LABELS.resolve("node.yaml"));
        String namespace = pod.namespace();
        Steps.ensureNamespace(namespace);
        Cluster.kubectl("apply", "-f", COPY_LABELS.resolve("node.yaml").toString()).run().orFail();
        var rules = List.of(INJECT_REF.resolve("rule.yaml"), Cluster.REPO.resolve(copyLabelsRule));
        for (Path rule : rules) {
            var manifest = Manifest.read(rule);
            Steps.ensureNamespace(manifest.namespace());
            Cluster.kubectl("apply", "-f", rule.toString()).run().orFail();
            Steps.awaitReady(manifest.ruleResource(), manifest.name(), manifest.namespace());
        }
        try {
            remold.server().awaitRulesInSync();
            Cluster.kubectl("create", "-f", INJECT_REF.resolve("input.yaml").toString()).run().orFail();

            var binding = new V1Binding().metadata(new V1ObjectMeta().name(pod.name()))
                    .target(new V1ObjectReference().kind("Node").apiVersion("v1").name(node.name()));
            // The API answers a Binding POST with a Status, which the generated model cannot read: check the code.
            try (var response = new CoreV1Api(Cluster.api()).createNamespacedPodBinding(pod.name(), namespace, binding)
                    .buildCall(null).execute()) {
                assertThat(response.body() == null ? "" : response.body().string(), response.code(), equalTo(201));
            }

            @SuppressWarnings("unchecked")
            var nodeLabels = (Map<String, Object>) node.at("metadata", "labels");
            String region = (String) nodeLabels.get("topology.kubernetes.io/region");
            String zone = (String) nodeLabels.get("topology.kubernetes.io/zone");
            try {
                // The node annotation and the labels arrive in updates of their own: wait for all of them.
                Wait.until("the pod to get the node annotation and the node's labels", Duration.ofSeconds(20), () -> {
                    var stored = Manifest.parse(Cluster.kubectl("get", "pod", pod.name(), "-n", namespace, "-o", "json")
                            .run().orFail().stdout());
                    @SuppressWarnings("unchecked")
                    var labels = (Map<String, Object>) stored.at("metadata", "labels");
                    @SuppressWarnings("unchecked")
                    var annotations = (Map<String, Object>) stored.at("metadata", "annotations");
                    return region.equals(labels.get("topology.kubernetes.io/region"))
                            && zone.equals(labels.get("topology.kubernetes.io/zone"))
                            && annotations != null && node.name().equals(annotations.get("ref.kubemod.io/node"));
                });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "\n" + Cluster.stored("pod", namespace, pod.name()), e);
            }
        } finally {
            Steps.delete(INJECT_REF.resolve("input.yaml"), namespace);
            for (Path rule : rules) {
                Cluster.kubectl("delete", "-f", rule.toString(), "--ignore-not-found").run().orFail();
            }
            remold.server().awaitRulesInSync();
        }
    }

    /**
     * KubeMod's own webhook test (corpus case webhook-01) through the real webhook: its rule (patch-33, api.kubemod.io,
     * UPDATE) and pod (pod-7, annotated {@code ref.kubemod.io/nodename}, the key KubeMod's code uses) unchanged; the
     * pod's UPDATE sees the node and gets its topology labels.
     */
    @Test
    void kubeModsWebhookCaseReadsTheNodeNameAnnotationOfKubeModsCode(Remold.Installation remold) {
        Path corpus = Cluster.REPO.resolve("../shared/conformance/kubemod/core/testdata").normalize();
        String namespace = "my-namespace";
        Steps.ensureNamespace(namespace);
        Cluster.apply("""
                apiVersion: v1
                kind: Node
                metadata:
                  name: my-node-1234
                  labels:
                    topology.kubernetes.io/region: us-west-2
                    topology.kubernetes.io/zone: us-west-2b
                """);
        Path rule = corpus.resolve("modrules/patch/patch-33.yaml");
        Cluster.kubectl("apply", "-n", namespace, "-f", rule.toString()).run().orFail();
        String pod = null;
        try {
            Steps.awaitReady(Manifest.KUBEMOD_RULES, "modrule-33", namespace);
            remold.server().awaitRulesInSync();
            pod = Cluster.kubectl("create", "-n", namespace, "-f", corpus.resolve("resources/pod-7.json").toString(),
                    "-o", "name").run().orFail().stdout().strip();
            Cluster.kubectl("label", "-n", namespace, pod, "touched=yes").run().orFail();
            String label = "{.metadata.labels.topology\\.kubernetes\\.io/";
            String labels = Cluster.kubectl("get", "-n", namespace, pod, "-o",
                    "jsonpath=" + label + "region} " + label + "zone}").run().orFail().stdout();
            assertThat(Cluster.kubectl("get", "-n", namespace, pod, "-o", "yaml").run().stdout(), labels,
                    equalTo("us-west-2 us-west-2b"));
        } finally {
            if (pod != null) {
                Cluster.kubectl("delete", "-n", namespace, pod, "--wait=false", "--grace-period=0", "--force").run();
            }
            Cluster.kubectl("delete", "-n", namespace, "-f", rule.toString(), "--ignore-not-found").run().orFail();
            Cluster.kubectl("delete", "node", "my-node-1234", "--ignore-not-found").run().orFail();
            remold.server().awaitRulesInSync();
        }
    }
}

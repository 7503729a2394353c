package io.remold.server.http;

import io.remold.api.ModRules;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/** Rules deciding real AdmissionReviews sent over HTTPS: patch, reject, dry run, ignored namespaces, references. */
class DecisionsOverHttpsTest {
    static final String RULES = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: label-pods, namespace: team-a}
            spec:
              type: Patch
              match:
              - select: '$.kind'
                matchValue: Pod
              patch:
              - op: add
                path: /metadata/labels/patched
                value: '"yes"'
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: no-latest, namespace: team-a}
            spec:
              type: Reject
              match:
              - select: '$.spec.containers[*].image'
                matchRegex: ':latest$'
              rejectMessage: 'pod {{Target.metadata.name}} uses a latest image'
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: env-from-namespace, namespace: team-a}
            spec:
              type: Patch
              match:
              - select: '$.syntheticRefs.namespace.metadata.labels.env'
              patch:
              - op: add
                path: /metadata/labels/env
                value: '{{Target.syntheticRefs.namespace.metadata.labels.env}}'
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: zone-from-node, namespace: team-a}
            spec:
              type: Patch
              match:
              - select: '$.syntheticRefs.node.metadata.labels.zone'
              patch:
              - op: add
                path: /metadata/labels/zone
                value: '{{Target.syntheticRefs.node.metadata.labels.zone}}'
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: keep-protected, namespace: team-a}
            spec:
              type: Reject
              admissionOperations: [DELETE]
              match:
              - select: '$.metadata.labels.protected'
                matchValue: 'true'
              rejectMessage: 'pod {{Target.metadata.name}} is protected'
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: label-namespaces, namespace: remold-system}
            spec:
              type: Patch
              match:
              - select: '$.kind'
                matchValue: Namespace
              patch:
              - op: add
                path: /metadata/labels/seen
                value: '"yes"'
            """;

    /** A cluster with one labelled namespace, one labelled node, and an ignored namespace. */
    static final ClusterRefs REFS = new ClusterRefs() {
        @Override
        public Optional<JsonValue> namespace(String name) {
            return Optional.of(json("""
                    {"apiVersion":"v1","kind":"Namespace","metadata":{"name":"%s","labels":{"env":"prod"}}}
                    """.formatted(name)));
        }

        @Override
        public Optional<JsonValue> node(String name) {
            return name.equals("node-7") ? Optional.of(json("""
                    {"apiVersion":"v1","kind":"Node","metadata":{"name":"node-7","labels":{"zone":"eu-1"}}}
                    """)) : Optional.empty();
        }

        @Override
        public boolean ignored(String namespace) {
            return namespace.equals("quiet");
        }
    };

    @TempDir
    Path dir;
    TestServer server;

    @BeforeEach
    void start() {
        server = new TestServer(dir, 1 << 20, REFS, BindingListener.NONE);
        server.rules(RULES);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    static JsonObject json(String text) {
        try (var reader = AdmissionReview.JSON.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    static String review(String uid, String namespace, String pod, boolean dryRun) {
        return """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"%s",
                 "kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},
                 "namespace":"%s","name":"web","operation":"CREATE","dryRun":%s,"object":%s}}
                """.formatted(uid, namespace, dryRun, pod);
    }

    static String pod(String image, String nodeName) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},
                 "spec":{%s"containers":[{"name":"c","image":"%s"}]}}
                """.formatted(nodeName == null ? "" : "\"nodeName\":\"" + nodeName + "\",", image);
    }

    JsonObject call(String path, String body) {
        return WebhookServerTest.response(server.post(path, "application/json", body));
    }

    static JsonArray patch(JsonObject response) {
        assertThat(response.getString("patchType"), is("JSONPatch"));
        byte[] decoded = Base64.getDecoder().decode(response.getString("patch"));
        try (var reader = AdmissionReview.JSON.createReader(new StringReader(new String(decoded, StandardCharsets.UTF_8)))) {
            return reader.readArray();
        }
    }

    @Test
    void mutateReturnsTheJsonPatchAndNamesThePatchingRules() {
        JsonObject response = call("/mutate", review("p1", "team-a", pod("nginx:1.27", null), false));
        assertThat(response.getString("uid"), is("p1"));
        assertThat(response.getBoolean("allowed"), is(true));
        assertThat(patch(response), is(json("""
                {"p":[{"op":"add","path":"/metadata/labels/env","value":"prod"},
                      {"op":"add","path":"/metadata/labels/patched","value":"yes"}]}
                """).getJsonArray("p")));
        assertThat(response.getJsonArray("warnings").getString(0),
                is("patched by ModRule(s): team-a/env-from-namespace, team-a/label-pods"));
        assertThat(response.getJsonObject("auditAnnotations").getString("patched-by"),
                is("team-a/env-from-namespace,team-a/label-pods"));
    }

    /**
     * F10: adding an ephemeral container is an UPDATE of pods/ephemeralcontainers whose object is the whole Pod:
     * rules judge it as a Pod (the installer intercepts the subresource by default).
     */
    @Test
    void anEphemeralContainerIsJudgedWithItsPod() {
        server.store.put("ephemeral.yaml#0", ModRules.parse("""
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: no-latest-anywhere, namespace: team-a}
                spec:
                  type: Reject
                  match:
                  - select: '$.kind'
                    matchValue: Pod
                  - select: '$.spec..image'
                    matchRegex: ':latest$'
                  rejectMessage: 'pod {{Target.metadata.name}} would run a latest image'
                """, "ephemeral.yaml").getFirst());
        server.store.batch(sink -> { });
        String before = pod("nginx:1.27", "node-7");
        String after = before.replace("\"containers\":", "\"ephemeralContainers\":[{\"name\":\"dbg\","
                + "\"image\":\"busybox:latest\",\"securityContext\":{\"privileged\":true}}],\"containers\":");
        String review = review("e1", "team-a", after, false).replace("\"operation\":\"CREATE\"",
                "\"subResource\":\"ephemeralcontainers\",\"operation\":\"UPDATE\",\"oldObject\":" + before);
        JsonObject response = call("/validate", review);
        assertThat(response.getBoolean("allowed"), is(false));
        assertThat(response.getJsonObject("status").getString("message"),
                containsString("team-a/no-latest-anywhere: \"pod web would run a latest image\""));
        assertThat(call("/validate", review.replace("busybox:latest", "busybox:1.37")).getBoolean("allowed"), is(true));
    }

    @Test
    void aPodOnANodeSeesTheNodeManifest() {
        JsonObject response = call("/mutate", review("p2", "team-a", pod("nginx:1.27", "node-7"), false));
        assertThat(patch(response).toString(), containsString(
                "{\"op\":\"add\",\"path\":\"/metadata/labels/zone\",\"value\":\"eu-1\"}"));
    }

    /** KubeMod's README documents ref.kubemod.io/node, its code writes ref.kubemod.io/nodename: both name the node. */
    @ParameterizedTest
    @ValueSource(strings = {"ref.remold.io/nodename", "ref.kubemod.io/node", "ref.kubemod.io/nodename"})
    void aPodAnnotatedWithItsNodeSeesTheNodeManifest(String annotation) {
        String annotated = pod("nginx:1.27", null).replace("\"labels\"",
                "\"annotations\":{\"" + annotation + "\":\"node-7\"},\"labels\"");
        JsonObject response = call("/mutate", review("p3", "team-a", annotated, false));
        assertThat(patch(response).toString(), containsString(
                "{\"op\":\"add\",\"path\":\"/metadata/labels/zone\",\"value\":\"eu-1\"}"));
    }

    /**
     * A node annotation naming a node that does not exist: the pod has no syntheticRefs.node, so the rule that reads
     * it does not match, and the other rules still apply (KubeMod fails the look-up and admits the pod unchanged).
     */
    @Test
    void aPodAnnotatedWithAMissingNodeStillGetsTheOtherRules() {
        String annotated = pod("nginx:1.27", null).replace("\"labels\"",
                "\"annotations\":{\"ref.kubemod.io/nodename\":\"node-gone\"},\"labels\"");
        String patch = patch(call("/mutate", review("p4", "team-a", annotated, false))).toString();
        assertThat(patch, not(containsString("/metadata/labels/zone")));
        assertThat(patch, containsString("{\"op\":\"add\",\"path\":\"/metadata/labels/env\",\"value\":\"prod\"}"));
    }

    /**
     * The API server sends a Namespace's own name as the request's namespace; a cluster-wide rule of the system
     * namespace (no targetNamespaceRegex: cluster-scoped objects) must still see it as cluster-scoped.
     */
    @Test
    void aNamespaceIsClusterScopedThoughItsRequestNamesItself() {
        JsonObject response = call("/mutate", """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"ns",
                 "kind":{"group":"","version":"v1","kind":"Namespace"},
                 "resource":{"group":"","version":"v1","resource":"namespaces"},
                 "namespace":"team-b","name":"team-b","operation":"CREATE",
                 "object":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-b","labels":{"a":"b"}}}}}
                """);
        assertThat(patch(response).toString(), is("[{\"op\":\"add\",\"path\":\"/metadata/labels/seen\",\"value\":\"yes\"}]"));
    }

    @Test
    void nothingToChangeMeansNoPatch() {
        JsonObject response = call("/mutate", review("p3", "team-b", pod("nginx:1.27", null), false));
        assertThat(response.getBoolean("allowed"), is(true));
        assertThat(response.containsKey("patch"), is(false));
        assertThat(response.containsKey("patchType"), is(false));
        assertThat(response.containsKey("warnings"), is(false));
    }

    @Test
    void ignoredNamespacesAreLeftAlone() {
        String body = review("i1", "quiet", pod("nginx:latest", null), false).replace("team-a", "quiet");
        for (String path : List.of("/mutate", "/validate")) {
            JsonObject response = call(path, body);
            assertThat(path, response.getBoolean("allowed"), is(true));
            assertThat(path, response.containsKey("patch"), is(false));
        }
    }

    @Test
    void validateRejectsWith403AndTheRenderedMessage() {
        JsonObject response = call("/validate", review("r1", "team-a", pod("nginx:latest", null), false));
        assertThat(response.getString("uid"), is("r1"));
        assertThat(response.getBoolean("allowed"), is(false));
        assertThat(response.getJsonObject("status").getInt("code"), is(403));
        assertThat(response.getJsonObject("status").getString("message"),
                containsString("pod web uses a latest image"));
        assertThat(response.getJsonObject("auditAnnotations").getString("rejected-by"), is("team-a/no-latest"));
        assertThat(call("/validate", review("r2", "team-a", pod("nginx:1.27", null), false))
                .getBoolean("allowed"), is(true));
    }

    /** A DELETE carries the object as oldObject, which the server parses only when a rule reads it. */
    @Test
    void deleteIsDecidedOnTheOldObject() {
        String delete = """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"%s",
                 "kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},
                 "namespace":"team-a","name":"web","operation":"DELETE","object":null,"oldObject":%s}}
                """;
        String protectedPod = pod("nginx:1.27", null)
                .replace("\"app\":\"web\"", "\"app\":\"web\",\"protected\":\"true\"");
        JsonObject refused = call("/validate", delete.formatted("x1", protectedPod));
        assertThat(refused.getBoolean("allowed"), is(false));
        assertThat(refused.getJsonObject("status").getString("message"), containsString("pod web is protected"));
        assertThat(refused.getJsonObject("auditAnnotations").getString("rejected-by"), is("team-a/keep-protected"));
        assertThat(call("/validate", delete.formatted("x2", pod("nginx:1.27", null))).getBoolean("allowed"),
                is(true));
    }

    @Test
    void dryRunIsDecidedLikeAnyRequest() {
        assertThat(patch(call("/mutate", review("d1", "team-a", pod("nginx:1.27", null), true))).size(), is(2));
        assertThat(call("/validate", review("d2", "team-a", pod("nginx:latest", null), true))
                .getBoolean("allowed"), is(false));
    }

    @Test
    void eachChangeOrRejectionIsOneJsonLogLineWithoutObjectData() {
        var lines = new CopyOnWriteArrayList<String>();
        try (var log = new DecisionLog(lines)) {
            call("/mutate", review("l1", "team-b", pod("nginx:1.27", null), false));
            call("/mutate", review("l2", "team-a", pod("nginx:1.27", null), false));
            call("/validate", review("l3", "team-a", pod("nginx:latest", null), true));
        }
        assertThat("nothing changed for l1: no line", lines.size(), is(2));
        JsonObject patched = json(lines.get(0));
        assertThat(patched.getString("message"), is("patched"));
        assertThat(patched.getJsonArray("rules").toString(), is("[\"team-a/env-from-namespace\",\"team-a/label-pods\"]"));
        assertThat(patched.getString("operation"), is("CREATE"));
        assertThat(patched.getString("kind"), is("Pod"));
        assertThat(patched.getString("namespace"), is("team-a"));
        assertThat(patched.getString("name"), is("web"));
        assertThat(patched.getString("uid"), is("l2"));
        assertThat(patched.getBoolean("dryRun"), is(false));
        assertThat(patched.containsKey("durationMs"), is(true));
        JsonObject rejected = json(lines.get(1));
        assertThat(rejected.getString("message"), is("rejected"));
        assertThat(rejected.getBoolean("dryRun"), is(true));
        assertThat(lines.toString().contains("nginx"), is(false));
    }

    @Test
    void metricsCountWhatEachRuleDid() {
        call("/mutate", review("m1", "team-a", pod("nginx:1.27", null), false));
        call("/validate", review("m2", "team-a", pod("nginx:latest", null), false));
        String text = server.getAdmin("/metrics").body();
        for (var line : Map.of(
                "remold_rule_patches_total{rule=\"team-a/label-pods\"}", "1",
                "remold_rule_rejections_total{rule=\"team-a/no-latest\"}", "1",
                "remold_requests_total{endpoint=\"/mutate\",outcome=\"patched\"}", "1",
                "remold_requests_total{endpoint=\"/validate\",outcome=\"rejected\"}", "1",
                "remold_rules", "6").entrySet()) {
            assertThat(text, containsString("\n" + line.getKey() + " " + line.getValue() + "\n"));
        }
    }
}

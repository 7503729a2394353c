package io.remold.server.http;

import io.remold.server.admission.BindingListener;
import io.remold.templating.RenderBudget;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

/**
 * The review's attacks on the engine over HTTPS (F3, F4): each is answered, only the attacker's rule or request
 * fails, with a reason naming the bound, and the server goes on deciding other requests.
 */
class HostileRulesOverHttpsTest {
    /** The review's amplify rule (1 MiB per key), a team's ordinary rule, and the shipped no-latest rule's message. */
    private static final String RULES = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: amplify, namespace: team-a}
            spec:
              type: Patch
              match:
              - {select: '$.kind', matchValue: ConfigMap}
              patch:
              - op: add
                select: '$.data.*'
                path: /data/#0
                value: '{{ SelectedItem | replace "a" "aaaaaaaaaa" | replace "a" "aaaaaaaaaa" | replace "a" "aaaaaaaaaa" | replace "a" "aaaaaaaaaa" | replace "a" "aaaaaaaaaa" | replace "a" "aaaaaaaaaa" }}'
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: label-all, namespace: team-a}
            spec:
              type: Patch
              match:
              - {select: '$.kind'}
              patch:
              - {op: add, path: /metadata/labels/checked, value: '"yes"'}
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: no-latest, namespace: team-a}
            spec:
              type: Reject
              match:
              - select: '$.spec.containers[*].image'
                matchRegex: ':latest$'
              rejectMessage: 'pod {{ Target.metadata.name }} uses a latest image'
            """;

    @TempDir
    Path dir;
    TestServer server;

    @BeforeEach
    void start() {
        server = new TestServer(dir, 1 << 20, DecisionsOverHttpsTest.REFS, BindingListener.NONE);
        server.rules(RULES);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static String review(String uid, String kind, String resource, String object) {
        return """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"%s",
                 "kind":{"group":"","version":"v1","kind":"%s"},"resource":{"group":"","version":"v1","resource":"%s"},
                 "namespace":"team-a","operation":"CREATE","object":%s}}
                """.formatted(uid, kind, resource, object);
    }

    private void stillDecides() {
        assertThat(server.get("/healthz").statusCode(), is(200));
        JsonObject response = DecisionsOverHttpsTest.json(server.post("/validate", "application/json",
                review("ok", "Pod", "pods", DecisionsOverHttpsTest.pod("nginx:latest", null))).body())
                .getJsonObject("response");
        assertThat(response.getBoolean("allowed"), is(false));
        assertThat(response.getJsonObject("status").getString("message"), containsString("uses a latest image"));
    }

    /** F3: 300 keys × 1 MiB would be 300 MiB; the rule stops at its budget, the other rule still patches. */
    @Test
    void theAmplifyRuleFailsAtItsBudgetAndTheServerStaysUp() {
        String configMap = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"data\":{"
                + IntStream.range(0, 300).mapToObj(i -> "\"k" + i + "\":\"a\"").collect(Collectors.joining(","))
                + "}}";
        JsonObject response = WebhookServerTest.response(server.post("/mutate", "application/json",
                review("amp", "ConfigMap", "configmaps", configMap)));
        assertThat(response.getBoolean("allowed"), is(true));
        assertThat(DecisionsOverHttpsTest.patch(response).toString(), containsString("/metadata/labels"));
        assertThat(response.getJsonArray("warnings").toString(), containsString("ModRule team-a/amplify failed: "));
        assertThat(response.getJsonArray("warnings").toString(), containsString("renders more than "
                + RenderBudget.MAX_PER_RULE + " characters in this rule"));
        assertThat(response.getJsonArray("warnings").getString(0), is("patched by ModRule(s): team-a/label-all"));
        stillDecides();
    }

    /** F4: a number no float64 holds is refused at the door; it never reaches a template. */
    @Test
    void aHugeNumberIsABadRequest() {
        String pod = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":1e999999999},"
                + "\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx:latest\"}]}}";
        for (String path : new String[] {"/validate", "/mutate"}) {
            HttpResponse<String> http = server.post(path, "application/json", review("num", "Pod", "pods", pod));
            assertThat(http.body(), http.statusCode(), is(400));
            assertThat(http.body(), containsString("number 1e999999999 is out of range (beyond a float64)"));
        }
        stillDecides();
    }
}

package io.remold.server.http;

import io.remold.api.ModRules;
import io.remold.api.YamlJson;
import io.remold.rules.TenantScripts;
import io.remold.scripting.ScriptFamily;
import io.remold.scripting.Scripts;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;

import static io.remold.server.http.WebhookServerTest.response;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

/**
 * The review's script attacks over HTTPS (F1, F8, S1): a tenant's script rule is refused unless its namespace is
 * enabled; an enabled one that passes a bound fails its own rule only, every answer comes within the request budget,
 * and neither the administrator's Patch rules nor other tenants' requests suffer.
 */
class ScriptIsolationHttpsTest {
    /** Room for a loaded build machine on top of the budget: the webhook's timeout is 1 s above the default. */
    private static final long SLACK_MILLIS = 1500;
    private static final String LOOP = "function jsa_validate(op, obj) { for (;;) {} }\n"
            + "function jsa_mutate(op, obj) { for (;;) {} }";

    @TempDir
    Path dir;
    TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void start(Duration budget) {
        server = new TestServer(dir, 1 << 20, ClusterRefs.NONE, BindingListener.NONE, Duration.ZERO, budget);
    }

    private static String scriptModRule(String namespace) {
        return WebhookServerTest.modRule("{\"type\":\"Script\",\"kinds\":[\"pods\"],\"js\":"
                + "\"function jsa_validate(op, obj) { return; }\"}").replace("\"namespace\":\"team-a\"}",
                "\"namespace\":\"" + namespace + "\"}");
    }

    private void putScript(String key, String yaml) {
        server.store.put(key, new ScriptFamily(), Scripts.parse(YamlJson.parse(yaml, key).getFirst().asJsonObject()));
    }

    private static String pod(String namespace) {
        return WebhookServerTest.review("u-" + namespace, "CREATE", "").replace("team-a", namespace);
    }

    @Test
    void aTenantsScriptRuleIsRefusedUnlessItsNamespaceIsEnabled() {
        start(TestServer.REQUEST_BUDGET);
        JsonObject refused = response(server.post("/validate-modrule", "application/json", scriptModRule("team-a")));
        assertThat(refused.getBoolean("allowed"), is(false));
        assertThat(refused.getJsonObject("status").getInt("code"), is(422));
        String message = refused.getJsonObject("status").getString("message");
        assertThat(message, containsString("namespace team-a are not enabled"));
        assertThat(message, containsString("tenant-scripts"));
        assertThat(response(server.post("/validate-modrule", "application/json", scriptModRule("remold-system")))
                .getBoolean("allowed"), is(true));
        server.store.tenantScripts(TenantScripts.parse("team-b, team-a"));
        assertThat(response(server.post("/validate-modrule", "application/json", scriptModRule("team-a")))
                .getBoolean("allowed"), is(true));
    }

    @Test
    void aRefusedTenantScriptIsNotLoaded() {
        start(TestServer.REQUEST_BUDGET);
        putScript("deny.yaml#0", """
                apiVersion: momiji.com/v1
                kind: JsAdmission
                metadata: {name: deny, namespace: team-a}
                spec: {js: "function jsa_validate(obj) { return {Allowed: false, Message: 'denied'}; }"}
                """);
        server.store.synced();
        assertThat(response(server.post("/validate", "application/json", pod("team-a"))).getBoolean("allowed"),
                is(true));
    }

    /** F1: the review's rule, enabled: its own requests are refused naming the bound, the server serves on. */
    @Test
    void aHugeTopLevelAllocationFailsOnlyItsRule() {
        start(TestServer.REQUEST_BUDGET);
        server.store.tenantScripts(TenantScripts.parse("team-a"));
        putScript("big.yaml#0", """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: big, namespace: team-a}
                spec:
                  type: Script
                  kinds: [pods]
                  js: |
                    var b = new ArrayBuffer(1 << 30);
                    function jsa_validate(op, obj) { return; }
                """);
        server.store.synced();
        JsonObject teamA = response(server.post("/validate", "application/json", pod("team-a")));
        assertThat(teamA.getBoolean("allowed"), is(false));
        assertThat(teamA.getJsonObject("status").getString("message"), containsString("16 MiB per ArrayBuffer"));
        assertThat(response(server.post("/validate", "application/json", pod("team-b"))).getBoolean("allowed"),
                is(true));
        assertThat(server.get("/healthz").statusCode(), is(200));
    }

    /**
     * F8, S1: a tenant's script that never returns: /mutate answers within the budget with the administrator's Patch
     * rule applied; /validate refuses the tenant's own pod in time; another tenant's pod, under a cluster-wide script,
     * is admitted meanwhile.
     */
    @Test
    void aStuckTenantScriptCostsOnlyItsOwnRequestsAndEveryAnswerIsInTime() throws Exception {
        Duration budget = Duration.ofMillis(800);
        start(budget);
        server.store.tenantScripts(TenantScripts.parse("team-a"));
        var admin = ModRules.parse("""
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: label, namespace: remold-system}
                spec:
                  type: Patch
                  targetNamespaceRegex: '.*'
                  match: [{select: '$.kind', matchValue: Pod}]
                  patch: [{op: add, path: /metadata/labels/audited, value: '"yes"'}]
                """, "admin.yaml");
        server.store.put("admin.yaml#0", admin.getFirst());
        putScript("stuck.yaml#0", """
                apiVersion: momiji.com/v1
                kind: JsAdmission
                metadata: {name: stuck, namespace: team-a}
                spec:
                  js: |
                """ + LOOP.indent(4));
        putScript("audit.yaml#0", """
                apiVersion: momiji.com/v1
                kind: ClusterJsAdmission
                metadata: {name: audit-all}
                spec: {js: "function jsa_validate(op, obj) { return {Allowed: true}; }"}
                """);
        server.store.synced();
        assertThat(server.get("/healthz").statusCode(), is(200)); // the connection is open before the clock starts

        long start = System.nanoTime();
        JsonObject mutated = response(server.post("/mutate", "application/json", pod("team-a")));
        assertThat(mutated.toString(), elapsedMillis(start), lessThan(budget.toMillis() + SLACK_MILLIS));
        String patch = new String(Base64.getDecoder().decode(mutated.getString("patch", "")), StandardCharsets.UTF_8);
        assertThat(mutated.toString(), patch, containsString("audited"));
        assertThat(mutated.getJsonArray("warnings").toString(), containsString("JsAdmission/team-a/stuck"));

        var attacks = new java.util.ArrayList<CompletableFuture<HttpResponse<String>>>();
        for (int i = 0; i < 3; i++) {
            attacks.add(CompletableFuture.supplyAsync(
                    () -> server.post("/validate", "application/json", pod("team-a"))));
        }
        start = System.nanoTime();
        JsonObject other = response(server.post("/validate", "application/json", pod("team-b")));
        assertThat(other.toString(), other.getBoolean("allowed"), is(true));
        assertThat(elapsedMillis(start), lessThan(budget.toMillis() + SLACK_MILLIS));
        for (var attack : attacks) {
            JsonObject refused = response(attack.get());
            assertThat(refused.getBoolean("allowed"), is(false));
            assertThat(refused.getJsonObject("status").getString("message"), containsString("JsAdmission"));
        }
    }

    private static long elapsedMillis(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}

package io.remold.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.anyOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;

/**
 * The security review's attacks (shared notes, "Security and availability review"), replayed against the real API
 * server by tenants acting through kubectl impersonation ({@code --as=alice}, {@code --as=bob}) with only a Role in
 * their namespace, or by anyone who reaches the webhook port. Each scenario asserts what must hold afterwards: the
 * server is up, other tenants' rules and the cluster admin's rule still apply, and the attacker's own rule fails
 * with a reason. The server runs, for this class only, with the JVM options of the bundle's Deployment (a 128 MiB
 * heap that exits on OutOfMemoryError, as the review ran it) and the options the review's fixes added: tenant
 * scripts for one namespace, mutual TLS with the CA of the API server's webhook client certificate, Secrets
 * referable, and no KubeMod compatibility.
 */
@ExtendWith(Remold.class)
class HostileTenantIT {
    /** May run scripts ({@code --tenant-scripts}); alice administers it. */
    private static final String TEAM_A = "e2e-team-a";
    /** May not; bob administers it. */
    private static final String TEAM_B = "e2e-team-b";
    private static final String KUBEMOD_SYSTEM = "kubemod-system";
    private static final long REQUEST_BUDGET_MS = 4000;
    private static final long READ_TIMEOUT_MS = 5000;
    /** What a loaded 2-core machine adds to an answer or a close beyond the server's own bound. */
    private static final Duration SLACK = Duration.ofMillis(1500);
    /** The cluster admin's Patch rule (system namespace) labels the tenants' pods and ConfigMaps with this. */
    private static final String POLICY_LABEL = "e2e-cluster-policy";
    private static final String POLICY = "e2e-hostile-policy";
    private static final Pattern PATCH = Pattern.compile("\"patch\"\\s*:\\s*\"([^\"]*)\"");

    private static final String NO_LATEST = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: no-latest, namespace: %s}
            spec:
              type: Reject
              match:
                - {select: '$.kind', matchValue: Pod}
                - {select: '$.spec..image', matchRegex: ':latest$'}
              rejectMessage: 'pod {{ Target.metadata.name }}: :latest images are not allowed'
            """;

    @BeforeAll
    static void tenantsAndTheHardenedServer(Remold.Installation remold) {
        for (var tenant : List.of(List.of(TEAM_A, "alice"), List.of(TEAM_B, "bob"))) {
            Steps.ensureNamespace(tenant.get(0));
            Cluster.apply(tenantRole(tenant.get(0), tenant.get(1)));
        }
        Cluster.apply("""
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: %s, namespace: %s}
                spec:
                  type: Patch
                  targetNamespaceRegex: '^e2e-team-'
                  match:
                    - {select: '$.kind', matchRegex: '^(Pod|ConfigMap)$'}
                  patch:
                    - {op: add, path: '/metadata/labels/%s', value: applied}
                """.formatted(POLICY, Remold.SYSTEM_NAMESPACE, POLICY_LABEL));
        remold.server().restart(Remold.deploymentJvmOptions(), List.of("--tenant-scripts", TEAM_A,
                "--client-ca", Cluster.CLIENT_CA.toString(), "--allow-references", "configmaps,secrets",
                "--request-budget-ms", String.valueOf(REQUEST_BUDGET_MS), "--read-timeout-ms",
                String.valueOf(READ_TIMEOUT_MS)));
        Steps.awaitReady(POLICY, Remold.SYSTEM_NAMESPACE);
        remold.server().awaitRulesInSync();
    }

    @AfterEach
    void serverUpForTheNextScenario(Remold.Installation remold) {
        for (String namespace : List.of(TEAM_A, TEAM_B)) {
            for (String kind : List.of("modrules.remold.io", "pods", "configmaps")) {
                Cluster.kubectl("delete", kind, "--all", "-n", namespace, "--wait=false", "--grace-period=0",
                        "--force").run();
            }
        }
        if (!remold.server().alive()) {
            // The scenario already failed on it; the next ones get a server again.
            remold.server().start();
        }
        remold.server().awaitRulesInSync();
    }

    @AfterAll
    static void sharedServerAgain(Remold.Installation remold) {
        Cluster.kubectl("delete", "modrules.remold.io", POLICY, "-n", Remold.SYSTEM_NAMESPACE, "--ignore-not-found")
                .run().orFail();
        for (String namespace : List.of(TEAM_A, TEAM_B)) {
            Cluster.kubectl("delete", "role,rolebinding", "e2e-tenant", "-n", namespace, "--ignore-not-found").run();
        }
        remold.server().restart(List.of(), RemoldServer.DEFAULT_OPTIONS);
        remold.server().awaitRulesInSync();
    }

    private static String tenantRole(String namespace, String user) {
        return """
                apiVersion: rbac.authorization.k8s.io/v1
                kind: Role
                metadata: {name: e2e-tenant, namespace: %1$s}
                rules:
                  - apiGroups: [remold.io]
                    resources: [modrules]
                    verbs: [get, list, watch, create, update, patch, delete]
                  - apiGroups: ['']
                    resources: [pods, pods/ephemeralcontainers, configmaps]
                    verbs: [get, list, watch, create, update, patch, delete]
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: RoleBinding
                metadata: {name: e2e-tenant, namespace: %1$s}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: e2e-tenant}
                subjects:
                  - {apiGroup: rbac.authorization.k8s.io, kind: User, name: %2$s}
                """.formatted(namespace, user);
    }

    /** kubectl as a tenant: impersonation, with only the Role above. */
    private static Command as(String user, String... args) {
        var argv = new ArrayList<>(List.of("--as=" + user));
        argv.addAll(List.of(args));
        return Cluster.kubectl(argv.toArray(String[]::new));
    }

    /**
     * {@code kubectl apply} as the user. Applied again while the API server gave up on /validate-modrule after its
     * 5 s timeout: on a cold server of a loaded machine the first script checks (a GraalJS engine) can take longer,
     * which is not what these scenarios are about.
     */
    private static Command.Result applyAs(String user, String yaml) {
        var apply = as(user, "apply", "-f", "-").withInput(yaml);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        var result = apply.run();
        // Each attempt takes the 5 s of the timeout: no pause is needed between them.
        while (result.stderr().contains("context deadline exceeded") && System.nanoTime() < deadline) {
            result = apply.run();
        }
        return result;
    }

    private static String pod(String name, String namespace, String image, String labels) {
        return """
                apiVersion: v1
                kind: Pod
                metadata: {name: %s, namespace: %s, labels: %s}
                spec:
                  containers:
                    - {name: app, image: '%s'}
                """.formatted(name, namespace, labels, image);
    }

    private static String scriptRule(String name, String js) {
        return """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: %s, namespace: %s}
                spec:
                  type: Script
                  kinds: [pods]
                  js: |
                %s""".formatted(name, TEAM_A, js.indent(4));
    }

    private static String jsonpath(String kind, String namespace, String name, String path) {
        return Cluster.kubectl("get", kind, name, "-n", namespace, "-o", "jsonpath={" + path + "}").run().orFail()
                .stdout();
    }

    /** The server process is alive and its admin port answers /healthz. */
    private static void assertUp(Remold.Installation remold) {
        assertThat("the server process must be alive\n" + remold.server().logTail(40), remold.server().alive(),
                is(true));
        var health = remold.server().admin("/healthz");
        assertThat("GET /healthz on the admin port\n" + health, health.ok(), is(true));
    }

    /** Another tenant's Reject rule still refuses, and its ordinary pod is admitted and patched by the admin's rule. */
    private static void assertTeamBUnaffected() {
        Cluster.apply(NO_LATEST.formatted(TEAM_B));
        Steps.awaitReady("no-latest", TEAM_B);
        var latest = as("bob", "create", "-f", "-").withInput(pod("bob-latest", TEAM_B, "nginx:latest", "{}")).run();
        assertThat("team-b's Reject rule must still refuse\n" + latest, latest.ok(), is(false));
        assertThat(latest.stderr(), containsString("pod bob-latest: :latest images are not allowed"));
        as("bob", "create", "-f", "-").withInput(pod("bob-ok", TEAM_B, "nginx:1.27", "{}")).run().orFail();
        assertThat(Cluster.stored("pod", TEAM_B, "bob-ok"), jsonpath("pod", TEAM_B, "bob-ok",
                ".metadata.labels." + POLICY_LABEL), equalTo("applied"));
    }

    @Test
    void f1ScriptRulesOfTenantsNeedTheOptionAndAMemoryBombFailsOnlyItsOwnRule(Remold.Installation remold) {
        String bomb = """
                var b = new ArrayBuffer(1 << 30);
                function jsa_validate(op, obj) { return; }
                """;
        // team-b is not named by --tenant-scripts: refused on apply, naming the namespace and the option.
        var refused = applyAs("bob", scriptRule("big", bomb).replace("namespace: " + TEAM_A, "namespace: " + TEAM_B));
        assertThat(refused.toString(), refused.ok(), is(false));
        assertThat(refused.stderr(), containsString(TEAM_B));
        assertThat(refused.stderr(), containsString("tenant-scripts"));
        // team-a may run scripts: the rule is admitted, fails to load, and nothing else is affected.
        applyAs("alice", scriptRule("big", bomb)).orFail();
        var failed = Cluster.kubectl("wait", "--for=condition=Ready=False", "modrules.remold.io/big", "-n", TEAM_A,
                "--timeout=60s").run();
        assertThat(failed + "\n" + Cluster.stored("modrules.remold.io", TEAM_A, "big") + "\n"
                + remold.server().logTail(40), failed.ok(), is(true));
        assertThat(Cluster.stored("modrules.remold.io", TEAM_A, "big"),
                jsonpath("modrules.remold.io", TEAM_A, "big", ".status.conditions[?(@.type==\"Ready\")].message"),
                matchesPattern("(?is).*(MiB|memory|size|length|bytes).*"));
        assertUp(remold);
        assertTeamBUnaffected();
        // Restarted with the rule in place (the review's crash loop), the server comes up again.
        remold.server().restart(remold.server().jvmOptions(), remold.server().options());
        assertUp(remold);
    }

    @Test
    void f2TheIgnoreLabelOnATenantsObjectSkipsNoRule(Remold.Installation remold) {
        applyAs("alice", NO_LATEST.formatted(TEAM_A)).orFail();
        Steps.awaitReady("no-latest", TEAM_A);
        String ignored = "{admission.remold.io/ignore: 'true'}";
        var latest = as("alice", "create", "-f", "-").withInput(pod("web", TEAM_A, "nginx:latest", ignored)).run();
        assertThat("the labelled pod must still be refused\n" + latest, latest.ok(), is(false));
        assertThat(latest.stderr(), containsString("pod web: :latest images are not allowed"));
        as("alice", "create", "-f", "-").withInput(pod("web-ok", TEAM_A, "nginx:1.27", ignored)).run().orFail();
        assertThat("the labelled pod must still be patched\n" + Cluster.stored("pod", TEAM_A, "web-ok"),
                jsonpath("pod", TEAM_A, "web-ok", ".metadata.labels." + POLICY_LABEL), equalTo("applied"));
        assertUp(remold);
    }

    @Test
    void f3AnAmplifyingPatchRuleFailsForItsRequestWithinTheRenderedBytesBudget(Remold.Installation remold) {
        String replace = " | replace \"a\" \"aaaaaaaaaa\"".repeat(6);
        applyAs("alice", """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: amplify, namespace: %s}
                spec:
                  type: Patch
                  match:
                    - {select: '$.kind', matchValue: ConfigMap}
                  patch:
                    - op: add
                      select: '$.data.*'
                      path: /data/#0
                      value: '{{ SelectedItem%s }}'
                """.formatted(TEAM_A, replace)).orFail();
        applyAs("alice", """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: marker, namespace: %s}
                spec:
                  type: Patch
                  match:
                    - {select: '$.kind', matchValue: ConfigMap}
                  patch:
                    - {op: add, path: /metadata/labels/marker, value: 'yes'}
                """.formatted(TEAM_A)).orFail();
        Steps.awaitReady("amplify", TEAM_A);
        Steps.awaitReady("marker", TEAM_A);
        remold.server().awaitRulesInSync();
        var data = new StringBuilder();
        for (int i = 0; i < 300; i++) {
            data.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"a\"");
        }
        var created = as("alice", "create", "-f", "-").withInput("""
                {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c300","namespace":"%s"},"data":{%s}}"""
                .formatted(TEAM_A, data)).run();
        assertThat(created.toString(), created.ok(), is(true));
        assertThat(created.stderr(), containsString("amplify"));
        assertThat(created.stderr(), matchesPattern("(?is).*(budget|renders more than).*"));
        String stored = Cluster.stored("configmap", TEAM_A, "c300");
        assertThat(stored, jsonpath("configmap", TEAM_A, "c300", ".data.k0"), equalTo("a"));
        assertThat("the other rules of the request still apply\n" + stored,
                jsonpath("configmap", TEAM_A, "c300", ".metadata.labels.marker") + ","
                        + jsonpath("configmap", TEAM_A, "c300", ".metadata.labels." + POLICY_LABEL),
                equalTo("yes,applied"));
        assertUp(remold);
        assertTeamBUnaffected();
    }

    @Test
    void f4AHugeExponentIsABadRequest(Remold.Installation remold) throws IOException {
        // A rule that renders the object's name as text, as reject-latest-images.yaml does.
        applyAs("alice", """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: name-check, namespace: %s}
                spec:
                  type: Reject
                  match:
                    - {select: '$.kind', matchValue: Pod}
                  rejectMessage: 'pod {{ Target.metadata.name }} refused'
                """.formatted(TEAM_A)).orFail();
        Steps.awaitReady("name-check", TEAM_A);
        remold.server().awaitRulesInSync();
        String review = WebhookClient.review(TEAM_A, "Pod", "pods", """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":1e999999999,"namespace":"%s"},\
                "spec":{"containers":[{"name":"app","image":"nginx:latest"}]}}""".formatted(TEAM_A));
        for (String path : List.of("/validate", "/mutate")) {
            var answer = WebhookClient.asApiServer().post(remold.server().url() + path, review);
            assertThat(path + ": " + answer, answer.status(), equalTo(400));
            assertThat(path + ": " + answer, answer.body(), not(equalTo("")));
            assertUp(remold);
        }
    }

    @Test
    void f5f6StalledAndHeaderOnlyRequestsAreClosedAndTheServerKeepsServing(Remold.Installation remold) {
        applyAs("alice", NO_LATEST.formatted(TEAM_A)).orFail();
        Steps.awaitReady("no-latest", TEAM_A);
        int port = remold.server().port();
        Duration watch = Duration.ofMillis(READ_TIMEOUT_MS).plus(Duration.ofSeconds(20));
        // Past the TLS handshake (with the API server's certificate): the bounds under test are HTTP's.
        var tls = WebhookClient.tls(true);
        // F5: bodies announced at the largest allowed size (3 MiB), never sent: 20 x 3 MiB is past the in-flight budget.
        try (var headerOnly = StalledRequests.open(tls, port, "/validate", 20, 3 * 1024 * 1024, 0, watch);
             // F6: more than the 256 request slots, each one byte into a 100-byte body.
             var slow = StalledRequests.open(tls, port, "/validate", 300, 100, 1, watch)) {
            assertUp(remold);
            // An ordinary admission through the API server succeeds while the attacker holds its connections.
            Wait.until("an ordinary admission to succeed during the stall", Duration.ofMillis(READ_TIMEOUT_MS)
                    .plus(SLACK).plusSeconds(5), () -> as("alice", "create", "-f", "-")
                    .withInput(pod("during-stall", TEAM_A, "nginx:1.27", "{}")).run().ok());
            var latest = as("alice", "create", "-f", "-").withInput(pod("stall-latest", TEAM_A, "nginx:latest", "{}"))
                    .run();
            assertThat(latest.stderr(), containsString("pod stall-latest: :latest images are not allowed"));
            for (var connections : List.of(headerOnly, slow)) {
                var closed = connections.awaitWatches();
                assertThat("every stalled connection is closed by the server", closed.stream()
                        .map(StalledRequests.Closed::after).toList(), everyItem(notNullValue()));
                assertThat(closed.stream().map(StalledRequests.Closed::after).max(Duration::compareTo).orElseThrow(),
                        lessThanOrEqualTo(Duration.ofMillis(READ_TIMEOUT_MS).plus(SLACK)));
            }
        }
        assertUp(remold);
    }

    @Test
    void f7ScriptsHoardingMemoryFailOnlyTheirOwnRule(Remold.Installation remold) throws IOException {
        applyAs("alice", scriptRule("hoard", """
                var hoard = [];
                function jsa_validate(op, obj) {
                  var a = new Uint8Array(40 * 1024 * 1024);
                  a[0] = 1; hoard.push(a);
                  return { Allowed: true };
                }
                """)).orFail();
        applyAs("alice", scriptRule("grow-state", """
                function jsa_validate(op, obj, sync, state) {
                  state.chunks = state.chunks || [];
                  state.chunks.push('x'.repeat(3 * 1024 * 1024));
                  return { Allowed: true };
                }
                """)).orFail();
        Steps.awaitReady("hoard", TEAM_A);
        Steps.awaitReady("grow-state", TEAM_A);
        var apiServer = WebhookClient.asApiServer();
        for (int i = 0; i < 8; i++) {
            var answer = apiServer.post(remold.server().url() + "/validate",
                    WebhookClient.podReview(TEAM_A, "hoarded-" + i, "{}"));
            assertThat("request " + i + ": " + answer + "\n" + remold.server().logTail(20), answer.status(),
                    equalTo(200));
            assertThat("request " + i + ": " + answer, answer.took(), lessThanOrEqualTo(budget()));
            // Allowed, or refused by one of the hoarding rules themselves.
            assertThat(answer.body(), anyOf(matchesPattern("(?s).*\"allowed\"\\s*:\\s*true.*"),
                    containsString("hoard"), containsString("grow-state")));
        }
        assertUp(remold);
        assertTeamBUnaffected();
    }

    private static Duration budget() {
        return Duration.ofMillis(REQUEST_BUDGET_MS).plus(SLACK);
    }

    @Test
    void f8StuckScriptsDelayNeitherOtherTenantsNorTheAdminsPatch(Remold.Installation remold) throws IOException {
        // The review's uninterruptible builtin (one BigInt power of about 15 s) is refused: BigInt is off.
        var bigint = applyAs("alice", scriptRule("bigint", "function jsa_validate(op, obj) { var x = 10n ** 25000000n;"
                + " return { Allowed: true }; }\n"));
        assertThat(bigint.toString(), bigint.ok(), is(false));
        assertThat(bigint.stderr(), containsString("SyntaxError"));
        // What is left to a tenant: calls that run until stopped, on every request that asks for it.
        String stuck = "if ((obj.metadata.annotations || {}).%s) { while (true) {} }";
        applyAs("alice", scriptRule("slow-validate", "function jsa_validate(op, obj) { " + stuck.formatted("e")
                + " return { Allowed: true }; }\n")).orFail();
        applyAs("alice", scriptRule("slow-mutate", "function jsa_mutate(op, obj) { " + stuck.formatted("m")
                + " return { Allowed: true, Result: obj }; }\n")).orFail();
        String auditAll = """
                apiVersion: momiji.com/v1
                kind: ClusterJsAdmission
                metadata: {name: e2e-audit-all}
                spec:
                  kinds: [pods]
                  js: |
                    function jsa_validate(op, obj) { return { Allowed: true }; }
                """;
        Cluster.apply(auditAll);
        try {
            Steps.awaitReady("slow-validate", TEAM_A);
            Steps.awaitReady("slow-mutate", TEAM_A);
            Cluster.kubectl("wait", "--for=condition=Ready=True", "clusterjsadmission.momiji.com/e2e-audit-all",
                    "--timeout=60s").run().orFail();
            var apiServer = WebhookClient.asApiServer();
            // /mutate of team-a's pod comes first: a validation stopped by its time limit (rather than its statement
            // limit, as on a busy machine) quarantines its rule for 30 s, and a quarantined validation refuses
            // team-a's requests. /mutate answers within the budget with the admin's patch in it ...
            var mutate = apiServer.post(remold.server().url() + "/mutate",
                    WebhookClient.podReview(TEAM_A, "slow-m", "{\"m\":\"1\"}"));
            assertThat(mutate.toString(), mutate.took(), lessThanOrEqualTo(budget()));
            assertThat(mutate.toString(), patchOf(mutate.body()), containsString(POLICY_LABEL));
            // ... so the API server (5 s timeout, failurePolicy Ignore) does not skip it for the pod kubectl creates.
            as("alice", "create", "-f", "-").withInput(pod("slow-m", TEAM_A, "nginx:1.27", "{}")
                    .replace("labels: {}", "labels: {}, annotations: {m: '1'}")).run().orFail();
            assertThat(Cluster.stored("pod", TEAM_A, "slow-m"), jsonpath("pod", TEAM_A, "slow-m",
                    ".metadata.labels." + POLICY_LABEL), equalTo("applied"));
            // Two of team-a's validations each run until stopped...
            var slow = IntStream.range(0, 2).mapToObj(i -> CompletableFuture.supplyAsync(() -> {
                try {
                    return apiServer.post(remold.server().url() + "/validate",
                            WebhookClient.podReview(TEAM_A, "slow-" + i, "{\"e\":\"1\"}"));
                } catch (IOException e) {
                    throw new AssertionError("team-a's review " + i + " got no answer", e);
                }
            })).toList();
            // ... while team-b's pods, which the cluster-wide script also validates, are admitted.
            for (int i = 0; i < 3; i++) {
                var created = as("bob", "create", "-f", "-").withInput(pod("b" + i, TEAM_B, "nginx:1.27", "{}")).run();
                assertThat("team-b's pod " + i + " during team-a's attack\n" + created, created.ok(), is(true));
            }
            for (var answer : slow.stream().map(CompletableFuture::join).toList()) {
                assertThat(answer.toString(), answer.status(), equalTo(200));
                assertThat(answer.toString(), answer.took(), lessThanOrEqualTo(budget()));
            }
            assertUp(remold);
        } finally {
            Cluster.kubectl("delete", "-f", "-", "--ignore-not-found").withInput(auditAll).run().orFail();
        }
    }

    /** The JSON Patch of an AdmissionReview response (base64 in {@code response.patch}), or "" without one. */
    private static String patchOf(String reviewJson) {
        var m = PATCH.matcher(reviewJson);
        return m.find() ? new String(Base64.getDecoder().decode(m.group(1)), StandardCharsets.UTF_8) : "";
    }

    @Test
    void f10AnEphemeralContainerIsJudgedLikeTheRestOfThePod(Remold.Installation remold) {
        applyAs("alice", NO_LATEST.formatted(TEAM_A)).orFail();
        Steps.awaitReady("no-latest", TEAM_A);
        as("alice", "create", "-f", "-").withInput(pod("web2", TEAM_A, "nginx:1.27", "{}")).run().orFail();
        var debug = as("alice", "-n", TEAM_A, "patch", "pod", "web2", "--subresource=ephemeralcontainers",
                "--type=strategic", "-p", "{\"spec\":{\"ephemeralContainers\":[{\"name\":\"dbg\","
                        + "\"image\":\"busybox:latest\",\"securityContext\":{\"privileged\":true}}]}}").run();
        assertThat(debug + "\n" + Cluster.stored("pod", TEAM_A, "web2"), debug.ok(), is(false));
        assertThat(debug.stderr(), containsString(":latest images are not allowed"));
        assertThat(jsonpath("pod", TEAM_A, "web2", ".spec.ephemeralContainers"), equalTo(""));
        assertUp(remold);
    }

    @Test
    void f11WithoutTheApiServersClientCertificateNoReviewIsAnswered(Remold.Installation remold) throws IOException {
        applyAs("alice", NO_LATEST.formatted(TEAM_A)).orFail();
        Steps.awaitReady("no-latest", TEAM_A);
        String forged = WebhookClient.podReview(TEAM_A, "forged", "{}");
        var refused = assertThrowsIo(() -> WebhookClient.anonymous().post(remold.server().url() + "/validate", forged));
        // Refused at TLS, not left unanswered.
        assertThat(refused.toString(), refused, not(instanceOf(HttpTimeoutException.class)));
        // The same review with the API server's certificate is answered: the refusal is the missing certificate.
        var answered = WebhookClient.asApiServer().post(remold.server().url() + "/validate", forged);
        assertThat(answered.toString(), answered.status(), equalTo(200));
        // The API server presents it on its own: creates are admitted and patched, Reject rules refuse.
        as("alice", "create", "-f", "-").withInput(pod("mtls", TEAM_A, "nginx:1.27", "{}")).run().orFail();
        assertThat(Cluster.stored("pod", TEAM_A, "mtls"), jsonpath("pod", TEAM_A, "mtls",
                ".metadata.labels." + POLICY_LABEL), equalTo("applied"));
        var latest = as("alice", "create", "-f", "-").withInput(pod("mtls-latest", TEAM_A, "nginx:latest", "{}")).run();
        assertThat(latest.stderr(), containsString("pod mtls-latest: :latest images are not allowed"));
        // Rule names (every tenant's) are on the admin port only.
        var metrics = WebhookClient.asApiServer().get(remold.server().url() + "/metrics");
        assertThat(metrics.toString(), metrics.status(), not(equalTo(200)));
        assertThat(metrics.body(), not(containsString("e2e-team-a/no-latest")));
        assertThat(remold.server().admin("/metrics").orFail().stdout(), containsString("remold_rules"));
    }

    /** Runs a call that must fail with an IOException (a refused TLS handshake), and returns it. */
    private static IOException assertThrowsIo(IoCall call) {
        try {
            var answer = call.run();
            throw new AssertionError("expected the connection to be refused, got an answer: " + answer);
        } catch (IOException e) {
            return e;
        }
    }

    private interface IoCall {
        WebhookClient.Answer run() throws IOException;
    }

    @Test
    void f12ATenantWhoMayNotReadSecretsCannotReferenceThem(Remold.Installation remold) {
        String peek = """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: peek, namespace: %s}
                spec:
                  type: Reject
                  references: [{name: s, apiVersion: v1, kind: Secret, objectName: db, onMissing: fail}]
                  match:
                    - {select: '$.kind', matchValue: ConfigMap}
                    - {select: '$.metadata.name', matchValue: peek}
                  rejectMessage: 'password is {{ References.s.data.password | b64dec }}'
                """.formatted(TEAM_A);
        var canRead = as("alice", "auth", "can-i", "get", "secrets", "-n", TEAM_A).run();
        assertThat(canRead.stdout().strip(), equalTo("no"));
        var refused = applyAs("alice", peek);
        assertThat(refused.toString(), refused.ok(), is(false));
        assertThat(refused.stderr(), matchesPattern("(?is).*secret.*"));
        assertThat(Cluster.kubectl("get", "modrules.remold.io", "peek", "-n", TEAM_A, "--ignore-not-found").run()
                .orFail().stdout(), equalTo(""));
        // Who may read Secrets there (the cluster admin) may reference them: the refusal is about the author.
        Cluster.kubectl("apply", "--dry-run=server", "-f", "-").withInput(peek).run().orFail();
        assertUp(remold);
    }

    @Test
    void f13AKubemodRuleInKubemodSystemStaysInItsNamespaceWithoutKubemodCompat(Remold.Installation remold) {
        Steps.ensureNamespace(KUBEMOD_SYSTEM);
        String everywhere = """
                apiVersion: api.kubemod.io/v1beta1
                kind: ModRule
                metadata: {name: e2e-everywhere, namespace: %s}
                spec:
                  type: Patch
                  targetNamespaceRegex: '.*'
                  match:
                    - {select: '$.kind', matchValue: ConfigMap}
                  patch:
                    - {op: add, path: /metadata/labels/e2e-kubemod, value: everywhere}
                """.formatted(KUBEMOD_SYSTEM);
        Cluster.apply(everywhere);
        try {
            Steps.awaitReady("modrules.api.kubemod.io", "e2e-everywhere", KUBEMOD_SYSTEM);
            remold.server().awaitRulesInSync();
            Cluster.kubectl("create", "configmap", "e2e-own", "-n", KUBEMOD_SYSTEM).run().orFail();
            assertThat("the rule applies in its own namespace\n" + Cluster.stored("configmap", KUBEMOD_SYSTEM,
                    "e2e-own"), jsonpath("configmap", KUBEMOD_SYSTEM, "e2e-own", ".metadata.labels.e2e-kubemod"),
                    equalTo("everywhere"));
            as("bob", "create", "configmap", "elsewhere", "-n", TEAM_B).run().orFail();
            assertThat("and nowhere else\n" + Cluster.stored("configmap", TEAM_B, "elsewhere"),
                    jsonpath("configmap", TEAM_B, "elsewhere", ".metadata.labels.e2e-kubemod"), equalTo(""));
            assertUp(remold);
        } finally {
            Cluster.kubectl("delete", "-f", "-", "--ignore-not-found").withInput(everywhere).run().orFail();
            Cluster.kubectl("delete", "configmap", "e2e-own", "-n", KUBEMOD_SYSTEM, "--ignore-not-found").run();
        }
    }
}

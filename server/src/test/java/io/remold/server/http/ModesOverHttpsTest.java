package io.remold.server.http;

import io.remold.api.RuleMode;
import io.remold.rules.impact.ImpactSink;
import io.remold.rules.impact.ObjectRef;
import io.remold.rules.impact.Verdict;
import io.remold.server.Eventually;
import io.remold.server.admission.BindingListener;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.remold.server.http.DecisionsOverHttpsTest.json;
import static io.remold.server.http.WebhookServerTest.response;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

/**
 * Rule modes over real HTTPS: a Shadow rule of each kind leaves the answer exactly as without it and its verdict
 * reaches the impact sink after the answer; a Warn rule's refusal admits with a warning and an audit annotation; a
 * mode that cannot be is refused at rule admission naming its field; a full shadow queue drops and counts.
 */
class ModesOverHttpsTest {
    /** The enforced rules: DecisionsOverHttpsTest's label on every pod, and a refusal of pods labelled root. */
    static final String ENFORCED = DecisionsOverHttpsTest.RULES.substring(0,
            DecisionsOverHttpsTest.RULES.indexOf("---")) + """
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: no-root, namespace: team-a}
            spec:
              type: Reject
              match:
              - select: '$.metadata.labels.root'
                matchValue: 'true'
              rejectMessage: 'pod {{Target.metadata.name}} runs as root'
            """;

    /**
     * Shadow rules of two families (a Patch ModRule that reads the enforced rule's label, so it sees what would be
     * stored; a Gatekeeper mutator in Shadow by its annotation) and a Shadow Reject rule.
     */
    static final String SHADOW = """
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: tier-label, namespace: team-a}
            spec:
              type: Patch
              mode: Shadow
              match:
              - select: '$.metadata.labels.patched'
                matchValue: 'yes'
              patch:
              - op: add
                path: /metadata/labels/tier
                value: '"web"'
            ---
            apiVersion: mutations.gatekeeper.sh/v1
            kind: AssignMetadata
            metadata:
              name: owner
              annotations: {remold.io/mode: Shadow}
            spec:
              match: {kinds: [{apiGroups: [""], kinds: [Pod]}]}
              location: metadata.labels.owner
              parameters: {assign: {value: team-a}}
            """ + latestImages("no-latest-soon", "Shadow");

    /** A Warn rule (a remold.io ModRule, in its spec) and a KubeMod one (its annotation). */
    static final String WARN = latestImages("warn-latest", "Warn") + """
            ---
            apiVersion: api.kubemod.io/v1beta1
            kind: ModRule
            metadata:
              name: warn-unnamed
              namespace: team-a
              annotations: {remold.io/mode: Warn}
            spec:
              type: Reject
              match:
              - select: '$.metadata.labels.app'
                negate: true
            """;

    /** A Reject rule of team-a named {@code name}, in {@code mode}, refusing pods with a latest image. */
    static String latestImages(String name, String mode) {
        return """
                ---
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: %s, namespace: team-a}
                spec:
                  type: Reject
                  mode: %s
                  match:
                  - select: '$.spec.containers[*].image'
                    matchRegex: ':latest$'
                  rejectMessage: 'pod {{Target.metadata.name}} uses a latest image'
                """.formatted(name, mode);
    }

    @TempDir
    Path dir;
    TestServer server;

    @BeforeEach
    void start() {
        server = new TestServer(dir, 1 << 20, DecisionsOverHttpsTest.REFS, BindingListener.NONE);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    static String review(String uid, String pod) {
        return DecisionsOverHttpsTest.review(uid, "team-a", pod, false);
    }

    static String pod(String image, String labels) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"team-a","labels":{%s}},
                 "spec":{"containers":[{"name":"c","image":"%s"}]}}
                """.formatted(labels, image);
    }

    JsonObject call(TestServer on, String path, String body) {
        return response(on.post(path, "application/json", body));
    }

    /** The response without its uid (the uids differ, on purpose, between the two servers' requests). */
    static JsonObject withoutUid(JsonObject response) {
        return jakarta.json.Json.createObjectBuilder(response).remove("uid").build();
    }

    @Test
    void shadowRulesLeaveTheAnswerExactlyAsWithoutThemAndTheirVerdictsReachTheSink() throws Exception {
        server.rules(ENFORCED + SHADOW);
        try (var without = new TestServer(dir.resolve("without"), 1 << 20, DecisionsOverHttpsTest.REFS,
                BindingListener.NONE)) {
            without.rules(ENFORCED);
            String pod = pod("nginx:latest", "\"app\":\"web\"");
            assertThat(withoutUid(call(server, "/mutate", review("s1", pod))),
                    is(withoutUid(call(without, "/mutate", review("w1", pod)))));
            assertThat(withoutUid(call(server, "/validate", review("s2", pod))),
                    is(withoutUid(call(without, "/validate", review("w2", pod)))));
        }
        var web = new ObjectRef("v1", "Pod", "team-a", "web");
        Eventually.await("the three Shadow verdicts", () -> server.verdicts.recorded().size() == 3);
        assertThat(server.verdicts.recorded(), is(List.of(
                new RecordingImpactSink.Recorded("ModRule", "team-a/tier-label", RuleMode.SHADOW,
                        ImpactSink.Source.ADMISSION, web, new Verdict.Changes(patch(
                        "[{\"op\":\"add\",\"path\":\"/metadata/labels/tier\",\"value\":\"web\"}]"))),
                new RecordingImpactSink.Recorded("Gatekeeper mutation", "AssignMetadata/owner", RuleMode.SHADOW,
                        ImpactSink.Source.ADMISSION, web, new Verdict.Changes(patch(
                        "[{\"op\":\"add\",\"path\":\"/metadata/labels/owner\",\"value\":\"team-a\"}]"))),
                new RecordingImpactSink.Recorded("ModRule", "team-a/no-latest-soon", RuleMode.SHADOW,
                        ImpactSink.Source.ADMISSION, web, new Verdict.Refuses("pod web uses a latest image")))));
        Eventually.await("the verdict counters", () -> server.metrics.scrape().contains(
                "remold_rule_verdicts_total{family=\"ModRule\",rule=\"team-a/no-latest-soon\",mode=\"Shadow\","
                        + "verdict=\"refused\",source=\"admission\"} 1"));
    }

    @Test
    void aDryRunIsNotRecorded() {
        server.rules(ENFORCED + SHADOW);
        call(server, "/mutate", DecisionsOverHttpsTest.review("d1", "team-a", pod("nginx:1", "\"app\":\"web\""),
                true));
        call(server, "/validate", review("v1", pod("nginx:latest", "\"app\":\"web\"")));
        // The worker takes requests in order: once the later one's verdict is in, the dry run's would be too.
        Eventually.await("the validating request's verdict", () -> !server.verdicts.recorded().isEmpty());
        assertThat(server.verdicts.recorded().stream().map(RecordingImpactSink.Recorded::rule).toList(),
                is(List.of("team-a/no-latest-soon")));
    }

    @Test
    void aWarnRuleThatWouldRefuseAdmitsWithAWarningAndAnAuditAnnotation() {
        server.rules(ENFORCED + WARN);
        JsonObject warned = call(server, "/validate", review("v1", pod("nginx:latest", "")));
        assertThat(warned.getBoolean("allowed"), is(true));
        assertThat(warned.getJsonArray("warnings").getValuesAs(jakarta.json.JsonString::getString), is(List.of(
                "ModRule team-a/warn-latest would refuse: pod web uses a latest image",
                "ModRule team-a/warn-unnamed would refuse")));
        assertThat(warned.getJsonObject("auditAnnotations").getString(AdmissionEndpoints.WARNED_BY),
                is("team-a/warn-latest,team-a/warn-unnamed"));

        // An enforced rule still refuses; the warnings come with its refusal, which names only it.
        JsonObject refused = call(server, "/validate", review("v2", pod("nginx:latest",
                "\"app\":\"web\",\"root\":\"true\"")));
        assertThat(refused.getBoolean("allowed"), is(false));
        assertThat(refused.getJsonObject("status").getString("message"),
                is("operation rejected by the following ModRule(s): team-a/no-root: \"pod web runs as root\""));
        assertThat(refused.getJsonArray("warnings").getString(0),
                is("ModRule team-a/warn-latest would refuse: pod web uses a latest image"));
        assertThat(refused.getJsonObject("auditAnnotations").getString("rejected-by"), is("team-a/no-root"));

        Eventually.await("the Warn verdicts", () -> server.verdicts.recorded().size() == 3);
        assertThat(server.verdicts.recorded().getFirst(), is(new RecordingImpactSink.Recorded("ModRule",
                "team-a/warn-latest", RuleMode.WARN, ImpactSink.Source.ADMISSION,
                new ObjectRef("v1", "Pod", "team-a", "web"), new Verdict.Refuses("pod web uses a latest image"))));
    }

    @Test
    void aWarnModeOnARuleThatNeverRefusesIsRefusedAtAdmissionNamingTheField() {
        JsonObject patchRule = call(server, "/validate-modrule", WebhookServerTest.modRule(
                "{\"type\":\"Patch\",\"mode\":\"Warn\",\"match\":[{\"select\":\"$.kind\"}],"
                        + "\"patch\":[{\"op\":\"remove\",\"path\":\"/metadata/labels/x\"}]}"));
        assertThat(patchRule.getBoolean("allowed"), is(false));
        assertThat(patchRule.getJsonObject("status").getString("message"),
                containsString("spec.mode: Warn is for rules that refuse requests"));
        JsonObject misspelt = call(server, "/validate-modrule", WebhookServerTest.modRule(
                "{\"type\":\"Reject\",\"mode\":\"shadow\",\"match\":[{\"select\":\"$.kind\"}]}"));
        assertThat(misspelt.getJsonObject("status").getString("message"),
                containsString("spec.mode: must be Enforce, Shadow or Warn, not \"shadow\""));
        String mutator = WebhookServerTest.assign("{\"applyTo\":[{\"groups\":[\"\"],\"kinds\":[\"Pod\"],"
                + "\"versions\":[\"v1\"]}],\"location\":\"spec.priority\",\"parameters\":{\"assign\":{\"value\":7}}}")
                .replace("\"metadata\":{\"name\":\"a1\"}",
                        "\"metadata\":{\"name\":\"a1\",\"annotations\":{\"remold.io/mode\":\"Warn\"}}");
        JsonObject refused = call(server, "/validate-modrule", mutator);
        assertThat(refused.getJsonObject("status").getInt("code"), is(422));
        assertThat(refused.getJsonObject("status").getString("message"), startsWith(
                "Assign team-a/a1 is invalid: metadata.annotations.remold.io/mode: Warn is for rules that refuse"));
        JsonObject shadow = call(server, "/validate-modrule", mutator.replace("\"Warn\"", "\"Shadow\""));
        assertThat(shadow.getBoolean("allowed"), is(true));
    }

    /** The queue is bounded in requests (here 1) and in the bytes of their bodies (here 100). */
    @Test
    void aFullShadowQueueDropsTheRequestAndCountsIt() throws InterruptedException {
        var metrics = new Metrics();
        var started = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        try (var worker = new ShadowWorker(1, 100, 1, ImpactSink.NONE, metrics)) {
            worker.submit(10, null, new ShadowWorker.Evaluation(() -> {
                started.countDown();
                awaitQuietly(release);
            }, () -> 0));
            assertThat(started.await(30, TimeUnit.SECONDS), is(true));
            worker.submit(91, null, new ShadowWorker.Evaluation(() -> { }, () -> 0)); // too many bytes with the first
            assertThat(metrics.scrape(), containsString("\nremold_shadow_dropped_total{reason=\"queue\"} 1\n"));
            worker.submit(90, () -> { }, null); // waits in the queue
            worker.submit(0, null, new ShadowWorker.Evaluation(() -> { }, () -> 0)); // finds it full
            assertThat(metrics.scrape(), containsString("\nremold_shadow_dropped_total{reason=\"queue\"} 2\n"));
            assertThat(metrics.scrape(), containsString("\nremold_shadow_dropped_total{reason=\"cpu\"} 0\n"));
            release.countDown();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static JsonArray patch(String text) {
        return json("{\"p\":" + text + "}").getJsonArray("p");
    }
}

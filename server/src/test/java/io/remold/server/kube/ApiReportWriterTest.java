package io.remold.server.kube;

import io.remold.api.RuleMode;
import io.remold.engine.RuleFamily;
import io.remold.rules.impact.ImpactSink.Source;
import io.remold.rules.impact.ObjectRef;
import io.remold.rules.impact.Verdict;
import io.remold.server.reports.ReportKey;
import io.remold.server.reports.ReportLimits;
import io.remold.server.reports.ReportSink;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.remold.server.Eventually.await;
import static io.remold.server.kube.FakeApiServer.ok;
import static io.remold.server.kube.FakeApiServer.status;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

/** The leader's report writes against a fake API server: the objects applied (golden files), deletions, leadership. */
class ApiReportWriterTest {
    private static final boolean UPDATE = Boolean.getBoolean("remold.updateGolden");
    private static final Path GOLDEN = Path.of("src", "test", "resources", "io", "remold", "server", "kube",
            "reports");
    private static final String RULE = "team-a/add-label";
    private static final String REPORTS = "/apis/openreports.io/v1alpha1/";
    private static final String REPORT = REPORTS + "namespaces/team-a/reports/" + new ReportKey(RULE, "team-a").name();
    private static final String TEAM_B_REPORT = REPORTS + "namespaces/team-b/reports/"
            + new ReportKey(RULE, "team-b").name();
    private static final String CLUSTER_REPORT = REPORTS + "clusterreports/" + new ReportKey(RULE, "").name();
    private static final String MODRULE = "/apis/remold.io/v1beta1/namespaces/team-a/modrules/add-label";

    private final NoWaitBackoff backoff = new NoWaitBackoff();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final WriteQueue queue = new WriteQueue(backoff, leader::get);
    private final FakeApiServer api = new FakeApiServer();
    private final ReportSink sink = new ReportSink(ReportLimits.DEFAULT,
            Clock.fixed(Instant.parse("2026-12-04T23:00:00Z"), ZoneOffset.UTC));
    private final ApiReportWriter writer = new ApiReportWriter(api.client(), queue, leader::get, sink);

    ApiReportWriterTest() throws IOException {
        api.on("GET", MODRULE, ok("{\"apiVersion\":\"remold.io/v1beta1\",\"kind\":\"ModRule\",\"metadata\":"
                        + "{\"name\":\"add-label\",\"namespace\":\"team-a\",\"uid\":\"6f1c2a4e-0000-4000-8000-000000000001\"}}"))
                .on("PATCH", REPORT, ok("{}"))
                .on("PATCH", TEAM_B_REPORT, ok("{}"))
                .on("PATCH", CLUSTER_REPORT, ok("{}"));
    }

    @AfterEach
    void stop() {
        queue.close();
        api.close();
    }

    private void record(Source source, ObjectRef object, Verdict verdict) {
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, source, object, verdict);
    }

    private void recordSome() {
        record(Source.ADMISSION, new ObjectRef("apps/v1", "Deployment", "team-a", "web"),
                new Verdict.Changes(Json.createArrayBuilder().add(Json.createObjectBuilder().add("op", "add")
                        .add("path", "/metadata/labels/team").add("value", "a")).build()));
        record(Source.EXISTING, new ObjectRef("v1", "ConfigMap", "team-a", "settings"),
                new Verdict.Refuses("configmaps need an owner label"));
        record(Source.EXISTING, new ObjectRef("v1", "ConfigMap", "team-a", "ok"), Verdict.UNCHANGED);
        record(Source.EXISTING, new ObjectRef("v1", "Namespace", "", "team-a"),
                new Verdict.Fails("spec.patch[0].value: template: missing key \"owner\""));
        record(Source.EXISTING, new ObjectRef("v1", "ConfigMap", "team-b", "c"), Verdict.UNCHANGED);
    }

    @Test
    void theLeaderAppliesEachReportThatChangedOwnedByItsModRuleInItsNamespace() throws IOException {
        recordSome();
        writer.flush();
        await(() -> api.requests("PATCH", REPORT).size() == 1 && api.requests("PATCH", CLUSTER_REPORT).size() == 1
                && api.requests("PATCH", TEAM_B_REPORT).size() == 1);

        for (var written : Map.of(REPORT, "report.json", CLUSTER_REPORT, "clusterreport.json",
                TEAM_B_REPORT, "report-other-namespace.json").entrySet()) {
            var request = api.requests("PATCH", written.getKey()).getFirst();
            assertThat(request.contentType(), is("application/apply-patch+yaml"));
            assertThat(request.query(), is("fieldManager=remold-reports&force=true"));
            assertGolden(written.getValue(), request.body());
        }
        assertThat("the rule is read once", api.requests("GET", MODRULE), hasSize(1));

        writer.flush();
        record(Source.ADMISSION, new ObjectRef("v1", "ConfigMap", "team-b", "c2"), Verdict.UNCHANGED);
        writer.flush();
        await(() -> api.requests("PATCH", TEAM_B_REPORT).size() == 2);
        assertThat("only what changed is written again", api.requests("PATCH", REPORT), hasSize(1));
    }

    @Test
    void aDeletedRulesReportsAreDeletedAndNotFoundIsNoReasonToRetry() {
        api.on("DELETE", REPORT, ok("{}")).on("DELETE", CLUSTER_REPORT, status(404, "NotFound"));
        record(Source.ADMISSION, new ObjectRef("v1", "Pod", "team-a", "web"), Verdict.UNCHANGED);
        writer.flush();
        await(() -> api.requests("PATCH", REPORT).size() == 1);

        sink.retain(Set.of());
        writer.flush();
        await(() -> api.requests("DELETE", REPORT).size() == 1 && api.requests("DELETE", CLUSTER_REPORT).size() == 1);
        // One worker, in order: once a later write is done, the deletions' outcome was decided.
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION,
                new ObjectRef("v1", "Pod", "team-b", "web"), Verdict.UNCHANGED);
        writer.flush();
        await(() -> api.requests("PATCH", TEAM_B_REPORT).size() == 1);
        assertThat("not retried", backoff.retries.get(), is(0));
    }

    @Test
    void aReplicaWritesNothingUntilItLeadsThenEveryReport() {
        leader.set(false);
        recordSome();
        writer.flush();
        writer.flush();
        leader.set(true);
        writer.flush();
        await(() -> api.requests("PATCH", REPORT).size() == 1 && api.requests("PATCH", CLUSTER_REPORT).size() == 1);

        leader.set(false);
        writer.flush();
        leader.set(true);
        writer.flush(); // leads again: another replica may have written meanwhile
        await(() -> api.requests("PATCH", REPORT).size() == 2 && api.requests("PATCH", CLUSTER_REPORT).size() == 2);
    }

    @Test
    void aRefusedWriteIsTriedAgain() {
        api.on("PATCH", CLUSTER_REPORT, status(403, "Forbidden"), ok("{}"));
        record(Source.EXISTING, new ObjectRef("v1", "Node", "", "n1"), Verdict.UNCHANGED);
        writer.flush();
        await(() -> api.requests("PATCH", CLUSTER_REPORT).size() == 2);
        assertThat(backoff.retries.get(), is(1));
        assertThat(api.requests("GET", MODRULE), empty());
    }

    @Test
    void reportsWithoutTheirCrdAreSaidOnceAndTriedAgain() {
        var logged = new java.util.concurrent.ConcurrentLinkedQueue<String>();
        var capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                if (record.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
                    logged.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        var log = java.util.logging.Logger.getLogger(ApiReportWriter.class.getName());
        log.addHandler(capture);
        try {
            String other = REPORTS + "namespaces/team-c/reports/" + new ReportKey(RULE, "team-c").name();
            String another = REPORTS + "namespaces/team-d/reports/" + new ReportKey(RULE, "team-d").name();
            record(Source.EXISTING, new ObjectRef("v1", "ConfigMap", "team-c", "c"), Verdict.UNCHANGED);
            record(Source.EXISTING, new ObjectRef("v1", "ConfigMap", "team-d", "d"), Verdict.UNCHANGED);
            writer.flush(); // the fake answers 404 to both Reports (no route), as to a resource not served
            await(() -> api.requests("PATCH", other).size() >= 2 && api.requests("PATCH", another).size() >= 2);
            assertThat(List.copyOf(logged), contains(startsWith("{0} are not served")));
        } finally {
            log.removeHandler(capture);
        }
    }

    private static void assertGolden(String name, String body) throws IOException {
        JsonObject written = Json.createReader(new StringReader(body)).readObject();
        Path golden = GOLDEN.resolve(name);
        if (UPDATE) {
            Files.createDirectories(GOLDEN);
            Files.writeString(golden, pretty(written));
        }
        JsonValue expected = Json.createReader(new StringReader(Files.readString(golden))).readValue();
        assertThat(name + " (rerun with -Dremold.updateGolden=true and review the diff)", pretty(written),
                equalTo(pretty(expected)));
    }

    private static String pretty(JsonValue value) {
        var out = new StringWriter();
        try (var writer = Json.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true)).createWriter(out)) {
            writer.write(value);
        }
        return out.toString().strip() + "\n";
    }
}

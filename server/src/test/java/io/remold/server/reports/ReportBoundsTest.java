package io.remold.server.reports;

import io.remold.api.RuleMode;
import io.remold.engine.RuleFamily;
import io.remold.rules.impact.ImpactSink.Source;
import io.remold.rules.impact.ObjectRef;
import io.remold.rules.impact.Verdict;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import static io.remold.server.reports.ReportSinkTest.CLOCK;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

/**
 * The stated bounds (docs/reports.md) at 10,000 objects: one rule's verdicts over 100 namespaces give 100 Reports and
 * one ClusterReport, each within its bytes and results, with exact counts; and 20,000 namespaces stay within the
 * reports in total, the rest folded and counted.
 */
class ReportBoundsTest {
    private static final String RULE = "remold-system/add-sidecar";

    /** Every tenth object passes, then changes with a large patch, refusals and failures in turn. */
    private static Verdict verdict(int i) {
        return switch (i % 10) {
            case 0 -> Verdict.UNCHANGED;
            case 1 -> new Verdict.Refuses("image " + "x".repeat(i % 3000) + " is not allowed");
            case 2 -> new Verdict.Fails("script error at line " + i);
            default -> new Verdict.Changes(Json.createArrayBuilder().add(Json.createObjectBuilder()
                    .add("op", "add").add("path", "/spec/template/spec/containers/-")
                    .add("value", "sidecar-" + "y".repeat(i % 8000))).build());
        };
    }

    private static int bytes(JsonObject report) {
        return report.toString().getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void tenThousandObjectsInAHundredNamespaces() {
        var sink = new ReportSink(ReportLimits.DEFAULT, CLOCK);
        for (int i = 0; i < 10_000; i++) {
            sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, i % 2 == 0 ? Source.ADMISSION : Source.EXISTING,
                    new ObjectRef("apps/v1", "Deployment", "ns-" + i / 100, "d-" + i), verdict(i));
        }
        List<ReportKey> reports = sink.drainChanged();
        assertThat("100 Reports and a ClusterReport", reports, hasSize(101));
        long pass = 0, fail = 0, error = 0, results = 0;
        int largest = 0;
        for (ReportKey key : reports) {
            JsonObject report = sink.render(key).orElseThrow();
            largest = Math.max(largest, bytes(report));
            assertThat(report.getJsonArray("results").size(), lessThanOrEqualTo(50));
            for (JsonObject result : report.getJsonArray("results").getValuesAs(JsonObject.class)) {
                assertThat(result.toString().getBytes(StandardCharsets.UTF_8).length, lessThanOrEqualTo(4096));
            }
            if (!key.cluster()) {
                JsonObject summary = report.getJsonObject("summary");
                pass += summary.getInt("pass");
                fail += summary.getInt("fail");
                error += summary.getInt("error");
                results += report.getJsonArray("results").size();
                assertThat("100 objects each", summary.getInt("pass") + summary.getInt("fail")
                        + summary.getInt("error"), is(100));
                assertThat("every object listed, or counted as omitted", report.getJsonArray("results").size()
                        + Long.parseLong(ReportSinkTest.annotation(report, ReportSink.OMITTED_ANNOTATION)), is(90L));
            }
        }
        assertThat(largest, lessThanOrEqualTo(256 * 1024));
        assertThat(List.of(pass, fail, error), is(List.of(1_000L, 8_000L, 1_000L)));
        assertThat(results, is(100 * 50L));
        JsonObject totals = sink.render(new ReportKey(RULE, "")).orElseThrow().getJsonObject("summary");
        assertThat(List.of(totals.getInt("pass"), totals.getInt("fail"), totals.getInt("error")),
                is(List.of(1_000, 8_000, 1_000)));
    }

    @Test
    void twentyThousandNamespacesStayWithinTheReportsInTotal() {
        var sink = new ReportSink(ReportLimits.DEFAULT, CLOCK);
        for (int i = 0; i < 20_000; i++) {
            sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.EXISTING,
                    new ObjectRef("v1", "ConfigMap", "ns-" + i, "c"), verdict(i));
        }
        List<ReportKey> reports = sink.drainChanged();
        assertThat(reports, hasSize(10_001));
        long listedBytes = 0;
        for (ReportKey key : reports) {
            Optional<JsonObject> report = sink.render(key);
            listedBytes += bytes(report.orElseThrow());
        }
        assertThat("the reports' share of etcd", listedBytes, lessThanOrEqualTo(ReportLimits.DEFAULT.bytesTotal()
                + 10_001L * ReportLimits.REPORT_OVERHEAD));
        JsonObject cluster = sink.render(new ReportKey(RULE, "")).orElseThrow();
        assertThat(ReportSinkTest.annotation(cluster, ReportSink.FOLDED_ANNOTATION), is("10000"));
        assertThat(cluster.getJsonObject("summary").getInt("fail") + cluster.getJsonObject("summary").getInt("pass")
                + cluster.getJsonObject("summary").getInt("error"), is(20_000));
    }
}

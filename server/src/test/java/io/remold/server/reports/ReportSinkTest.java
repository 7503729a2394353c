package io.remold.server.reports;

import io.remold.api.RuleMode;
import io.remold.engine.RuleFamily;
import io.remold.rules.impact.ImpactSink.Source;
import io.remold.rules.impact.ObjectRef;
import io.remold.rules.impact.Verdict;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

class ReportSinkTest {
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-04T23:00:00Z"), ZoneOffset.UTC);
    static final String RULE = "team-a/add-label";
    static final JsonArray PATCH = Json.createArrayBuilder().add(Json.createObjectBuilder()
            .add("op", "add").add("path", "/metadata/labels/team").add("value", "a")).build();
    static final Verdict CHANGES = new Verdict.Changes(PATCH);
    static final Verdict REFUSES = new Verdict.Refuses("no latest tags");
    static final Verdict FAILS = new Verdict.Fails("template failed: missing key");

    private final ReportSink sink = new ReportSink(ReportLimits.DEFAULT, CLOCK);

    static ObjectRef pod(String namespace, String name) {
        return new ObjectRef("v1", "Pod", namespace, name);
    }

    static ObjectRef node(String name) {
        return new ObjectRef("v1", "Node", "", name);
    }

    static JsonObject report(ReportSink sink, String rule, String namespace) {
        return sink.render(new ReportKey(rule, namespace)).orElseThrow();
    }

    static JsonObject summary(JsonObject report) {
        return report.getJsonObject("summary");
    }

    static String counts(JsonObject report) {
        JsonObject s = summary(report);
        return "pass=" + s.getInt("pass") + " fail=" + s.getInt("fail") + " warn=" + s.getInt("warn")
                + " error=" + s.getInt("error");
    }

    static Stream<Arguments> statuses() {
        return Stream.of(
                Arguments.of(Verdict.UNCHANGED, RuleMode.SHADOW, "pass"),
                Arguments.of(CHANGES, RuleMode.SHADOW, "fail"),
                Arguments.of(CHANGES, RuleMode.ENFORCE, "fail"),
                Arguments.of(REFUSES, RuleMode.SHADOW, "fail"),
                Arguments.of(REFUSES, RuleMode.ENFORCE, "fail"),
                Arguments.of(REFUSES, RuleMode.WARN, "warn"),
                Arguments.of(FAILS, RuleMode.SHADOW, "error"),
                Arguments.of(FAILS, RuleMode.WARN, "error"));
    }

    @ParameterizedTest(name = "{0} in {1}: {2}")
    @MethodSource("statuses")
    void aVerdictReadsAsAnOpenReportsResult(Verdict verdict, RuleMode mode, String result) {
        sink.record(RuleFamily.MODRULE, RULE, mode, Source.ADMISSION, pod("team-a", "web"), verdict);
        JsonObject report = report(sink, RULE, "team-a");
        assertThat(summary(report).getInt(result), is(1));
        assertThat(report.getJsonArray("results"), hasSize(result.equals("pass") ? 0 : 1));
        assertThat(summary(report(sink, RULE, "")).getInt(result), is(1));
    }

    static Stream<Arguments> messages() {
        return Stream.of(
                Arguments.of(CHANGES, RuleMode.SHADOW, Source.ADMISSION, "would change it: 1 patch operation(s), in properties.patch"),
                Arguments.of(CHANGES, RuleMode.ENFORCE, Source.ADMISSION, "changed it: 1 patch operation(s), in properties.patch"),
                Arguments.of(CHANGES, RuleMode.ENFORCE, Source.EXISTING, "would change it: 1 patch operation(s), in properties.patch"),
                Arguments.of(REFUSES, RuleMode.SHADOW, Source.ADMISSION, "would refuse it: no latest tags"),
                Arguments.of(REFUSES, RuleMode.WARN, Source.ADMISSION, "admitted it with a warning (Warn): no latest tags"),
                Arguments.of(REFUSES, RuleMode.WARN, Source.EXISTING, "would refuse it: no latest tags"),
                Arguments.of(FAILS, RuleMode.SHADOW, Source.EXISTING, "failed: template failed: missing key"));
    }

    @ParameterizedTest(name = "{0} in {1} from {2}")
    @MethodSource("messages")
    void theResultSaysWhatTheRuleDidOrWouldDo(Verdict verdict, RuleMode mode, Source source, String message) {
        sink.record(RuleFamily.MODRULE, RULE, mode, source, pod("team-a", "web"), verdict);
        JsonObject result = report(sink, RULE, "team-a").getJsonArray("results").getJsonObject(0);
        assertThat(result.getString("message"), is(message));
        JsonObject properties = result.getJsonObject("properties");
        assertThat(properties.getString("source"), is(source == Source.ADMISSION ? "admission" : "existing"));
        assertThat(properties.getString("mode"), is(mode.written()));
        assertThat(properties.containsKey("patch"), is(verdict instanceof Verdict.Changes));
    }

    @Test
    void oneReportPerRuleAndNamespaceAndAClusterReportWithTheRulesTotals() {
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, pod("team-a", "a1"), CHANGES);
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, pod("team-a", "a2"),
                Verdict.UNCHANGED);
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.EXISTING, pod("team-b", "b1"), REFUSES);
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.EXISTING, node("n1"), FAILS);
        sink.record(RuleFamily.MODRULE, "team-a/other", RuleMode.SHADOW, Source.ADMISSION, pod("team-a", "a1"),
                CHANGES);

        assertThat(sink.drainChanged(), containsInAnyOrder(new ReportKey(RULE, ""), new ReportKey(RULE, "team-a"),
                new ReportKey(RULE, "team-b"), new ReportKey("team-a/other", ""),
                new ReportKey("team-a/other", "team-a")));
        assertThat(sink.drainChanged(), hasSize(0));
        assertThat(counts(report(sink, RULE, "team-a")), is("pass=1 fail=1 warn=0 error=0"));
        assertThat(counts(report(sink, RULE, "team-b")), is("pass=0 fail=1 warn=0 error=0"));
        JsonObject cluster = report(sink, RULE, "");
        assertThat("the rule's totals", counts(cluster), is("pass=1 fail=2 warn=0 error=1"));
        assertThat("its cluster-scoped objects", cluster.getJsonArray("results"), hasSize(1));
        assertThat(cluster.getJsonArray("results").getJsonObject(0).getJsonArray("resources").getJsonObject(0)
                .getString("name"), is("n1"));
        assertThat(counts(report(sink, "team-a/other", "team-a")), is("pass=0 fail=1 warn=0 error=0"));
        assertThat(sink.render(new ReportKey(RULE, "team-c")).isPresent(), is(false));
    }

    @Test
    void anObjectHasOneResultPerSourceItsLatestAndNoneOnceItPasses() {
        ObjectRef web = pod("team-a", "web");
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, web, CHANGES);
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.EXISTING, web, CHANGES);
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, web, REFUSES);
        JsonArray results = report(sink, RULE, "team-a").getJsonArray("results");
        assertThat(results, hasSize(2));
        assertThat(results.getJsonObject(0).getString("message"), is("would refuse it: no latest tags"));

        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, web, Verdict.UNCHANGED);
        results = report(sink, RULE, "team-a").getJsonArray("results");
        assertThat(results, hasSize(1));
        assertThat(results.getJsonObject(0).getJsonObject("properties").getString("source"), is("existing"));
        assertThat("every verdict is counted", counts(report(sink, RULE, "team-a")),
                is("pass=1 fail=3 warn=0 error=0"));
    }

    @Test
    void aScanRestartsTheRulesVerdictsOfExistingObjectsOnly() {
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, pod("team-a", "a1"), CHANGES);
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.EXISTING, pod("team-a", "a2"), CHANGES);
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.EXISTING, pod("team-b", "b1"), CHANGES);
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.EXISTING, node("n1"), CHANGES);
        sink.drainChanged();

        sink.began(RuleFamily.MODRULE, RULE);
        assertThat(sink.drainChanged(), containsInAnyOrder(new ReportKey(RULE, ""), new ReportKey(RULE, "team-a"),
                new ReportKey(RULE, "team-b")));
        assertThat(counts(report(sink, RULE, "team-a")), is("pass=0 fail=1 warn=0 error=0"));
        assertThat(report(sink, RULE, "team-a").getJsonArray("results"), hasSize(1));
        assertThat("a namespace left without verdicts has no report", sink.render(new ReportKey(RULE, "team-b"))
                .isPresent(), is(false));
        JsonObject cluster = report(sink, RULE, "");
        assertThat(counts(cluster), is("pass=0 fail=1 warn=0 error=0"));
        assertThat(cluster.getJsonArray("results"), hasSize(0));
        assertThat(annotation(cluster, ReportSink.SCAN_ANNOTATION), is("Running"));

        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.EXISTING, pod("team-b", "b1"),
                Verdict.UNCHANGED);
        sink.ended(RuleFamily.MODRULE, RULE, true);
        assertThat(counts(report(sink, RULE, "team-b")), is("pass=1 fail=0 warn=0 error=0"));
        assertThat(annotation(report(sink, RULE, ""), ReportSink.SCAN_ANNOTATION), is("Done"));
    }

    @Test
    void aScanThatBeginsBeforeTheRulesFirstVerdictIsShown() {
        sink.began(RuleFamily.MODRULE, RULE);
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.EXISTING, pod("team-a", "a1"), CHANGES);
        assertThat(annotation(report(sink, RULE, ""), ReportSink.SCAN_ANNOTATION), is("Running"));
        sink.ended(RuleFamily.MODRULE, RULE, true);
        assertThat(annotation(report(sink, RULE, ""), ReportSink.SCAN_ANNOTATION), is("Done"));
    }

    @Test
    void aDeletedRulesReportsAreToBeDeleted() {
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, pod("team-a", "a1"), CHANGES);
        sink.record(RuleFamily.MODRULE, "team-a/kept", RuleMode.SHADOW, Source.ADMISSION, pod("team-a", "a1"),
                CHANGES);
        sink.drainChanged();
        sink.retain(Set.of("team-a/kept", "team-a/without-verdicts"));
        List<ReportKey> changed = sink.drainChanged();
        assertThat(changed, containsInAnyOrder(new ReportKey(RULE, ""), new ReportKey(RULE, "team-a")));
        changed.forEach(key -> assertThat(key + " renders empty", sink.render(key).isPresent(), is(false)));
        assertThat(sink.render(new ReportKey("team-a/kept", "team-a")).isPresent(), is(true));
    }

    @Test
    void aNewLeaderWritesEveryReport() {
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, pod("team-a", "a1"), CHANGES);
        sink.drainChanged();
        sink.touchAll();
        assertThat(sink.drainChanged(), containsInAnyOrder(new ReportKey(RULE, ""), new ReportKey(RULE, "team-a")));
    }

    @Test
    void aLongPatchOrMessageIsTruncatedToTheBytesOfAResult() {
        var patch = Json.createArrayBuilder();
        for (int i = 0; i < 500; i++) {
            patch.add(Json.createObjectBuilder().add("op", "add").add("path", "/metadata/labels/l" + i)
                    .add("value", "\"quoted\" ünïcödé " + i));
        }
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, pod("team-a", "a1"),
                new Verdict.Changes(patch.build()));
        sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, pod("team-a", "a2"),
                new Verdict.Refuses("é".repeat(10_000)));
        JsonArray results = report(sink, RULE, "team-a").getJsonArray("results");
        for (JsonObject result : results.getValuesAs(JsonObject.class)) {
            assertThat(result.toString().getBytes(StandardCharsets.UTF_8).length,
                    lessThanOrEqualTo(ReportLimits.DEFAULT.bytesPerResult()));
        }
        assertThat(results.getJsonObject(0).getJsonObject("properties").getString("patch"),
                matchesPattern("(?s)\\[\\{\"op\":\"add\".*…\\[truncated: \\d+ bytes]"));
        assertThat(results.getJsonObject(1).getString("message"), endsWith("…[truncated: 20017 bytes]"));
    }

    @Test
    void aReportListsTheFirstObjectsAndCountsTheOmitted() {
        var sink = new ReportSink(ReportLimits.DEFAULT.withResultsPerReport(2), CLOCK);
        for (int i = 0; i < 5; i++) {
            sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, pod("team-a", "p" + i),
                    CHANGES);
        }
        JsonObject report = report(sink, RULE, "team-a");
        assertThat(report.getJsonArray("results"), hasSize(2));
        assertThat(report.getJsonArray("results").getJsonObject(1).getJsonArray("resources").getJsonObject(0)
                .getString("name"), is("p1"));
        assertThat(annotation(report, ReportSink.OMITTED_ANNOTATION), is("3"));
        assertThat(summary(report).getInt("fail"), is(5));
        assertThat(report.getJsonObject("configuration").getJsonObject("limits").getInt("maxResults"), is(2));
    }

    @Test
    void pastTheReportsInTotalNamespacesAreFoldedIntoTheClusterReport() {
        var sink = new ReportSink(new ReportLimits(50, 4096, 256 * 1024, 32L << 20, 2), CLOCK);
        for (String namespace : List.of("a", "b", "c", "d")) {
            sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, pod(namespace, "p"), CHANGES);
        }
        sink.record(RuleFamily.MODRULE, "a/other", RuleMode.SHADOW, Source.ADMISSION, pod("a", "p"), CHANGES);
        assertThat(sink.drainChanged(), containsInAnyOrder(new ReportKey(RULE, ""), new ReportKey(RULE, "a"),
                new ReportKey(RULE, "b"), new ReportKey("a/other", "")));
        assertThat(sink.render(new ReportKey(RULE, "c")).isPresent(), is(false));
        JsonObject cluster = report(sink, RULE, "");
        assertThat("the totals count every verdict", summary(cluster).getInt("fail"), is(4));
        assertThat(annotation(cluster, ReportSink.FOLDED_ANNOTATION), is("2"));

        sink.retain(Set.of("a/other")); // deletes RULE, freeing its two Reports
        sink.record(RuleFamily.MODRULE, "a/other", RuleMode.SHADOW, Source.ADMISSION, pod("b", "p"), CHANGES);
        assertThat(sink.render(new ReportKey("a/other", "b")).isPresent(), is(true));
    }

    @Test
    void theResultsOfAllReportsStayWithinTheirTotalBytes() {
        var limits = new ReportLimits(50, 1024, 16 * 1024, 16 * 1024, 100);
        var sink = new ReportSink(limits, CLOCK);
        for (int i = 0; i < 200; i++) {
            sink.record(RuleFamily.MODRULE, RULE, RuleMode.SHADOW, Source.ADMISSION, pod("ns" + i % 10, "p" + i),
                    REFUSES);
        }
        long bytes = 0;
        long omitted = 0;
        for (int n = 0; n < 10; n++) {
            JsonObject report = report(sink, RULE, "ns" + n);
            bytes += report.getJsonArray("results").toString().getBytes(StandardCharsets.UTF_8).length;
            omitted += Long.parseLong(annotation(report, ReportSink.OMITTED_ANNOTATION));
        }
        assertThat(bytes, lessThanOrEqualTo(limits.bytesTotal()));
        assertThat(omitted, not(0L));
    }

    @Test
    void theReportCarriesItsRuleFamilyAndModeInLabelsAndAnnotations() {
        String rule = "Assign/Set_Pull.Policy-" + "x".repeat(300);
        sink.record(new RuleFamily("Gatekeeper mutation", "mutated by", "mutated-by"), rule, RuleMode.SHADOW,
                Source.ADMISSION, node("n1"), CHANGES);
        JsonObject metadata = report(sink, rule, "").getJsonObject("metadata");
        assertThat(metadata.getString("name"), matchesPattern("remold-assign-set-pull-policy-x+-[0-9a-f]{8}"));
        JsonObject labels = metadata.getJsonObject("labels");
        assertThat(labels.getString("remold.io/rule").length(), lessThanOrEqualTo(63));
        assertThat(labels.getString("remold.io/rule"), matchesPattern("[a-z0-9]([-a-z0-9]*[a-z0-9])?"));
        assertThat(labels.getString("remold.io/family"), is("gatekeeper-mutation"));
        assertThat(labels.getString("app.kubernetes.io/managed-by"), is("remold"));
        assertThat(annotation(report(sink, rule, ""), "remold.io/rule"), is(rule));
        assertThat(annotation(report(sink, rule, ""), "remold.io/mode"), is("Shadow"));
        assertThat("another rule, another name", new ReportKey("assign/set-pull-policy", "").name(),
                not(equalTo(new ReportKey("Assign/Set_Pull.Policy", "").name())));
        assertThat(report(sink, rule, "").toString(), containsString("\"category\":\"Gatekeeper mutation\""));
    }

    @Test
    void badSettingsAreRefusedNamingTheKey() {
        var results = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ReportLimits.DEFAULT.withResultsPerReport(1001));
        assertThat(results.getMessage(), is("report-results must be between 0 and 1000: 1001"));
        var interval = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new ReportOptions(true, ReportLimits.DEFAULT, java.time.Duration.ZERO));
        assertThat(interval.getMessage(), is("report-interval-seconds must be at least 1: 0"));
    }

    static String annotation(JsonObject report, String name) {
        return report.getJsonObject("metadata").getJsonObject("annotations").getString(name);
    }
}

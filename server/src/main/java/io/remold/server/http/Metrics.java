package io.remold.server.http;

import io.remold.gatekeeper.Gatekeeper;
import io.remold.api.RuleMode;
import io.remold.engine.RuleFamily;
import io.remold.rules.Snapshot;
import io.remold.rules.impact.ImpactSink;
import io.remold.rules.impact.ObjectRef;
import io.remold.rules.impact.Verdict;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * Counters in the Prometheus text exposition format, written by hand: the request path only touches
 * {@link LongAdder}s found without allocation (endpoints are an enum; rule counters are created once per rule).
 */
public final class Metrics implements ImpactSink {
    /**
     * Upper bounds of the latency buckets, in seconds; up to the longest webhook timeout (30 s), so that a p99 near
     * any timeout (the PrometheusRule's alert at 80% of it) falls inside a bucket and not beyond the last one.
     */
    private static final double[] BUCKETS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
            5, 10, 30};

    enum Endpoint {
        mutate, validate, validate_modrule, mutate_rule, noop;

        String path() {
            return "/" + name().replace('_', '-');
        }
    }

    /** Response classes counted per endpoint. */
    enum Outcome { allowed, patched, rejected, bad_request, error, unread }

    /** Why a request's Shadow evaluation (or its Warn verdicts) was dropped: a label of remold_shadow_dropped_total. */
    enum ShadowDrop {
        /** The shadow queue was full, in requests or bytes: all of the request's work. */
        queue,
        /** The Shadow evaluations' CPU budget was spent: the Shadow evaluation only. */
        cpu
    }

    /** What a rule did on one request. */
    enum RuleEvent {
        match("remold_rule_matches_total"), patch("remold_rule_patches_total"),
        reject("remold_rule_rejections_total"), error("remold_rule_errors_total");

        final String metric;

        RuleEvent(String metric) {
            this.metric = metric;
        }
    }

    private static final class EndpointStats {
        final LongAdder[] outcomes = adders(Outcome.values().length);
        final LongAdder[] buckets = adders(BUCKETS.length);
        final LongAdder count = new LongAdder();
        final LongAdder nanos = new LongAdder();
    }

    private final EndpointStats[] endpoints = new EndpointStats[Endpoint.values().length];
    private final Map<String, LongAdder[]> rules = new ConcurrentHashMap<>();
    private final LongAdder rebuilds = new LongAdder();
    /** Verdicts of rules in force, by family, rule, mode, verdict and source. */
    private final Map<VerdictSeries, LongAdder> verdicts = new ConcurrentHashMap<>();
    /** The outcome names of the rules in force: verdicts of other rules (gone meanwhile) are not counted. */
    private volatile Set<String> outcomeNames = Set.of();
    private final LongAdder[] shadowDropped = adders(ShadowDrop.values().length);
    private volatile int ruleCount;
    private volatile int mutatorCount;
    private volatile double lastRebuildSeconds;
    private volatile BooleanSupplier synced = () -> false;
    /** Appends the external data providers' counters (one series per Provider in force). */
    private volatile Consumer<StringBuilder> externalData = sb -> { };
    /** Whether this replica leads, or null where no replica campaigns (folder mode): then no series. */
    private volatile BooleanSupplier leader;
    private volatile IntSupplier rulesNotReady = () -> 0;
    /** The serving certificate's notAfter in Unix seconds, or 0 before one is loaded. */
    private volatile long certificateNotAfter;

    public Metrics() {
        for (int i = 0; i < endpoints.length; i++) {
            endpoints[i] = new EndpointStats();
        }
    }

    private static LongAdder[] adders(int n) {
        var out = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            out[i] = new LongAdder();
        }
        return out;
    }

    public void syncedBy(BooleanSupplier synced) {
        this.synced = synced;
    }

    public void externalData(Consumer<StringBuilder> writer) {
        this.externalData = writer;
    }

    /** Exports {@code remold_leader} from now on (cluster mode, where the replicas elect a leader). */
    public void leaderBy(BooleanSupplier leader) {
        this.leader = leader;
    }

    /** Rules the server holds but does not run: invalid, refused or disabled (their Ready condition is False). */
    public void rulesNotReadyBy(IntSupplier count) {
        this.rulesNotReady = count;
    }

    /** The serving certificate now in use expires at {@code notAfter}. */
    void certificate(Instant notAfter) {
        this.certificateNotAfter = notAfter.getEpochSecond();
    }

    void request(Endpoint endpoint, Outcome outcome, long nanos) {
        EndpointStats stats = endpoints[endpoint.ordinal()];
        stats.outcomes[outcome.ordinal()].increment();
        stats.count.increment();
        stats.nanos.add(nanos);
        double seconds = nanos / 1e9;
        for (int i = 0; i < BUCKETS.length; i++) {
            if (seconds <= BUCKETS[i]) {
                stats.buckets[i].increment();
                break;
            }
        }
    }

    void rule(String rule, RuleEvent event) {
        rules.computeIfAbsent(rule, k -> adders(RuleEvent.values().length))[event.ordinal()].increment();
    }

    /**
     * Drops the counters of rules that are gone, so that rule churn does not grow the series (and the map) without
     * bound; {@code current} holds the outcome names of the new snapshot's rules.
     */
    private void retainRules(Set<String> current) {
        outcomeNames = current;
        rules.keySet().retainAll(current);
        verdicts.keySet().removeIf(series -> !current.contains(series.rule()));
    }

    /** One series of {@code remold_rule_verdicts_total}. */
    private record VerdictSeries(String family, String rule, RuleMode mode, String verdict, Source source) {
    }

    /** Counts a verdict of a rule in force ({@code remold_rule_verdicts_total}). */
    @Override
    public void record(RuleFamily family, String rule, RuleMode mode, Source source, ObjectRef object,
                       Verdict verdict) {
        if (!outcomeNames.contains(rule)) {
            return;
        }
        String name = switch (verdict) {
            case Verdict.Changes c -> "changed";
            case Verdict.Refuses r -> "refused";
            case Verdict.Fails f -> "failed";
            case Verdict.Unchanged u -> "unchanged";
        };
        verdicts.computeIfAbsent(new VerdictSeries(family.name(), rule, mode, name, source), k -> new LongAdder())
                .increment();
    }

    /** A request's Shadow evaluation dropped, for {@code reason}. */
    void shadowDropped(ShadowDrop reason) {
        shadowDropped[reason.ordinal()].increment();
    }

    /** Counts an installed rule snapshot and drops the counters of rules it no longer holds. */
    public void installed(Snapshot snapshot) {
        // Every mode's rules: a Shadow rule is held, and evaluated, as much as an enforced one.
        Optional<Snapshot> shadow = snapshot.shadow();
        rulesRebuilt(snapshot.engine().ruleCount() + shadow.map(s -> s.engine().ruleCount()).orElse(0),
                snapshot.ruleCount(Gatekeeper.FAMILY) + shadow.map(s -> s.ruleCount(Gatekeeper.FAMILY)).orElse(0),
                snapshot.buildNanos());
        retainRules(snapshot.outcomeNames());
    }

    private void rulesRebuilt(int count, int mutators, long nanos) {
        rebuilds.increment();
        ruleCount = count;
        mutatorCount = mutators;
        lastRebuildSeconds = nanos / 1e9;
    }

    /** The exposition text ({@code text/plain; version=0.0.4}). */
    public String scrape() {
        var sb = new StringBuilder(4096);
        header(sb, "remold_requests_total", "counter", "Admission requests by endpoint and outcome.");
        for (Endpoint e : Endpoint.values()) {
            for (Outcome o : Outcome.values()) {
                sb.append("remold_requests_total{endpoint=\"").append(e.path()).append("\",outcome=\"")
                        .append(o).append("\"} ").append(endpoints[e.ordinal()].outcomes[o.ordinal()].sum())
                        .append('\n');
            }
        }
        header(sb, "remold_request_duration_seconds", "histogram", "Time to answer an admission request.");
        for (Endpoint e : Endpoint.values()) {
            EndpointStats stats = endpoints[e.ordinal()];
            long cumulative = 0;
            for (int i = 0; i < BUCKETS.length; i++) {
                cumulative += stats.buckets[i].sum();
                bucket(sb, e, Double.toString(BUCKETS[i]), cumulative);
            }
            long count = stats.count.sum();
            bucket(sb, e, "+Inf", count);
            sb.append("remold_request_duration_seconds_sum{endpoint=\"").append(e.path()).append("\"} ")
                    .append(stats.nanos.sum() / 1e9).append('\n');
            sb.append("remold_request_duration_seconds_count{endpoint=\"").append(e.path()).append("\"} ")
                    .append(count).append('\n');
        }
        for (RuleEvent event : RuleEvent.values()) {
            String name = event.metric;
            header(sb, name, "counter", "Requests on which a ModRule had this outcome: " + event + ".");
            rules.forEach((rule, counters) -> sb.append(name).append("{rule=\"").append(escape(rule)).append("\"} ")
                    .append(counters[event.ordinal()].sum()).append('\n'));
        }
        header(sb, "remold_rule_verdicts_total", "counter", "Objects a rule in mode Shadow or Warn was evaluated"
                + " against, by what it did or would have done.");
        verdicts.forEach((series, count) -> sb.append("remold_rule_verdicts_total{family=\"")
                .append(escape(series.family())).append("\",rule=\"").append(escape(series.rule()))
                .append("\",mode=\"").append(series.mode().written()).append("\",verdict=\"")
                .append(series.verdict()).append("\",source=\"")
                .append(series.source().name().toLowerCase(Locale.ROOT)).append("\"} ")
                .append(count.sum()).append('\n'));
        header(sb, "remold_shadow_dropped_total", "counter", "Admission requests whose Shadow evaluation was dropped,"
                + " by reason: queue (the shadow queue was full), cpu (the Shadow evaluations' CPU budget was spent).");
        for (ShadowDrop reason : ShadowDrop.values()) {
            sb.append("remold_shadow_dropped_total{reason=\"").append(reason).append("\"} ")
                    .append(shadowDropped[reason.ordinal()].sum()).append('\n');
        }
        header(sb, "remold_rules", "gauge", "ModRules in the current snapshot, in every mode.");
        sb.append("remold_rules ").append(ruleCount).append('\n');
        header(sb, "remold_gatekeeper_mutators", "gauge", "Gatekeeper mutators in the current engine snapshot.");
        sb.append("remold_gatekeeper_mutators ").append(mutatorCount).append('\n');
        header(sb, "remold_rules_synced", "gauge", "1 once the rule source delivered its initial state.");
        sb.append("remold_rules_synced ").append(synced.getAsBoolean() ? 1 : 0).append('\n');
        header(sb, "remold_rule_rebuilds_total", "counter", "Engine snapshots built.");
        sb.append("remold_rule_rebuilds_total ").append(rebuilds.sum()).append('\n');
        header(sb, "remold_rule_rebuild_seconds", "gauge", "Time the last engine snapshot took to build.");
        sb.append("remold_rule_rebuild_seconds ").append(lastRebuildSeconds).append('\n');
        header(sb, "remold_rules_not_ready", "gauge",
                "Rules held but not in force (invalid, refused or disabled): their Ready condition is False.");
        sb.append("remold_rules_not_ready ").append(rulesNotReady.getAsInt()).append('\n');
        header(sb, "remold_tls_certificate_not_after_seconds", "gauge",
                "Unix time at which the serving certificate in use expires.");
        sb.append("remold_tls_certificate_not_after_seconds ").append(certificateNotAfter).append('\n');
        BooleanSupplier leads = leader;
        header(sb, "remold_leader", "gauge", "1 on the replica that holds the leader lease (cluster mode only).");
        if (leads != null) {
            sb.append("remold_leader ").append(leads.getAsBoolean() ? 1 : 0).append('\n');
        }
        jvmMemory(sb);
        externalData.accept(sb);
        return sb.toString();
    }

    /** Heap and non-heap memory: what the container's fixed -Xmx and memory limit are read against. */
    private static void jvmMemory(StringBuilder sb) {
        var memory = ManagementFactory.getMemoryMXBean();
        MemoryUsage heap = memory.getHeapMemoryUsage();
        MemoryUsage nonHeap = memory.getNonHeapMemoryUsage();
        header(sb, "remold_jvm_memory_used_bytes", "gauge", "JVM memory in use, by area.");
        sb.append("remold_jvm_memory_used_bytes{area=\"heap\"} ").append(heap.getUsed()).append('\n');
        sb.append("remold_jvm_memory_used_bytes{area=\"nonheap\"} ").append(nonHeap.getUsed()).append('\n');
        header(sb, "remold_jvm_memory_committed_bytes", "gauge", "JVM memory committed by the operating system, by area.");
        sb.append("remold_jvm_memory_committed_bytes{area=\"heap\"} ").append(heap.getCommitted()).append('\n');
        sb.append("remold_jvm_memory_committed_bytes{area=\"nonheap\"} ").append(nonHeap.getCommitted()).append('\n');
        header(sb, "remold_jvm_memory_max_bytes", "gauge", "The JVM's heap bound (-Xmx).");
        sb.append("remold_jvm_memory_max_bytes{area=\"heap\"} ").append(heap.getMax()).append('\n');
    }

    private static void header(StringBuilder sb, String name, String type, String help) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void bucket(StringBuilder sb, Endpoint e, String le, long value) {
        sb.append("remold_request_duration_seconds_bucket{endpoint=\"").append(e.path()).append("\",le=\"")
                .append(le).append("\"} ").append(value).append('\n');
    }

    private static String escape(String label) {
        return label.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}

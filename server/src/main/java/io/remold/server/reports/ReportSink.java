package io.remold.server.reports;

import io.remold.api.RuleMode;
import io.remold.engine.RuleFamily;
import io.remold.rules.impact.ImpactSink;
import io.remold.rules.impact.ObjectRef;
import io.remold.rules.impact.ScanListener;
import io.remold.rules.impact.Verdict;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Aggregates verdicts into OpenReports reports (docs/reports.md): one {@code Report} per rule and namespace, listing
 * the first objects of that namespace the rule would change, refuse or failed on, with its counts; and one
 * {@code ClusterReport} per rule, listing its cluster-scoped objects, whose counts are the rule's totals. Every
 * bound of {@link ReportLimits} holds whatever the verdicts: past them, results are omitted and namespaces folded,
 * and both are counted. An impact scan restarts the rule's verdicts of existing objects.
 *
 * <p>Pure: what changed is {@linkplain #drainChanged() drained} by the writer, which {@linkplain #render renders}
 * each report when it writes it. Thread-safe (one lock: each call is short and off the admission path).
 */
public final class ReportSink implements ImpactSink, ScanListener {
    private static final System.Logger LOG = System.getLogger(ReportSink.class.getName());
    static final JsonProvider JSON = JsonProvider.provider();
    static final String API_VERSION = ReportKey.GROUP + "/" + ReportKey.VERSION;
    static final String SOURCE = "remold";
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String RULE_LABEL = "remold.io/rule";
    static final String FAMILY_LABEL = "remold.io/family";
    static final String MODE_ANNOTATION = "remold.io/mode";
    static final String OMITTED_ANNOTATION = "remold.io/results-omitted";
    static final String FOLDED_ANNOTATION = "remold.io/folded-verdicts";
    static final String SCAN_ANNOTATION = "remold.io/existing-scan";

    /** OpenReports' result values, in the summary's order ({@code skip} is never given). */
    enum Status {
        PASS, FAIL, WARN, ERROR;

        String written() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final int SOURCES = Source.values().length;

    /** Counts per source and status. */
    private static final class Counts {
        final long[][] bySource = new long[SOURCES][Status.values().length];

        void add(Source source, Status status) {
            bySource[source.ordinal()][status.ordinal()]++;
        }

        long of(Status status) {
            long sum = 0;
            for (long[] counts : bySource) {
                sum += counts[status.ordinal()];
            }
            return sum;
        }

        void clear(Source source) {
            java.util.Arrays.fill(bySource[source.ordinal()], 0);
        }

        boolean isEmpty() {
            for (Status status : Status.values()) {
                if (of(status) != 0) {
                    return false;
                }
            }
            return true;
        }
    }

    /** One object's latest result from one source, as written (its JSON text: its size is what the bounds count). */
    private record ResultKey(ObjectRef object, Source source) {
    }

    private record Result(String json, int bytes) {
    }

    /** A report's counts and results. */
    private static final class Tally {
        final Counts counts = new Counts();
        final Map<ResultKey, Result> results = new LinkedHashMap<>();
        final long[] omitted = new long[SOURCES];
        long bytes;

        long omitted() {
            return java.util.Arrays.stream(omitted).sum();
        }
    }

    /** Everything one rule reported. */
    private static final class RuleReports {
        RuleFamily family;
        RuleMode mode;
        final Counts totals = new Counts();
        final Tally cluster = new Tally();
        final Map<String, Tally> namespaces = new HashMap<>();
        final long[] folded = new long[SOURCES];
        boolean foldLogged;

        RuleReports(RuleFamily family, RuleMode mode) {
            this.family = family;
            this.mode = mode;
        }
    }

    private final ReportLimits limits;
    private final Clock clock;
    private final Map<String, RuleReports> rules = new HashMap<>();
    private final Set<ReportKey> changed = new LinkedHashSet<>();
    /** Whether a scan of the rule runs, for the rules scanned (a scan may begin before the rule's first verdict). */
    private final Map<String, Boolean> scans = new HashMap<>();
    private int namespacedReports;
    private long resultBytes;
    private long foldedVerdicts;

    public ReportSink(ReportLimits limits, Clock clock) {
        this.limits = limits;
        this.clock = clock;
    }

    @Override
    public synchronized void record(RuleFamily family, String rule, RuleMode mode, Source source, ObjectRef object,
            Verdict verdict) {
        RuleReports reports = rules.computeIfAbsent(rule, r -> new RuleReports(family, mode));
        if (reports.mode != mode || !reports.family.equals(family)) {
            reports.family = family;
            reports.mode = mode;
            markAll(rule, reports);
        }
        Status status = status(verdict, mode);
        reports.totals.add(source, status);
        changed.add(new ReportKey(rule, ""));
        Tally tally = object.namespace().isEmpty() ? reports.cluster : namespaceTally(rule, reports, object, source);
        if (tally == null) {
            return;
        }
        tally.counts.add(source, status);
        var key = new ResultKey(object, source);
        if (status == Status.PASS) {
            remove(tally, key); // what it said of that object earlier no longer holds
        } else {
            keep(tally, key, result(family, rule, mode, source, object, verdict, status));
        }
    }

    /** The tally of the object's namespace; null if the total of Reports is reached (the verdict is folded). */
    private Tally namespaceTally(String rule, RuleReports reports, ObjectRef object, Source source) {
        Tally tally = reports.namespaces.get(object.namespace());
        if (tally == null) {
            if (namespacedReports >= limits.reportsTotal()) {
                reports.folded[source.ordinal()]++;
                foldedVerdicts++;
                if (!reports.foldLogged) {
                    reports.foldLogged = true;
                    LOG.log(System.Logger.Level.WARNING, "{0} Reports exist (the most there may be): the verdicts of "
                            + "rule {1} in further namespaces, such as {2}, are only counted in its ClusterReport "
                            + "({3} verdicts folded so far, all rules)", namespacedReports, rule,
                            object.namespace(), foldedVerdicts);
                }
                return null;
            }
            tally = new Tally();
            reports.namespaces.put(object.namespace(), tally);
            namespacedReports++;
        }
        changed.add(new ReportKey(rule, object.namespace()));
        return tally;
    }

    /** Keeps a result in its report if the bounds allow, else counts it omitted. */
    private void keep(Tally tally, ResultKey key, Result result) {
        Result old = tally.results.get(key);
        long growth = result.bytes() - (old == null ? 0 : old.bytes());
        if (old == null && tally.results.size() >= limits.resultsPerReport()
                || tally.bytes + growth > limits.bytesPerReport() - ReportLimits.REPORT_OVERHEAD
                || resultBytes + growth > limits.bytesTotal()) {
            remove(tally, key);
            tally.omitted[key.source().ordinal()]++;
            return;
        }
        tally.results.put(key, result);
        tally.bytes += growth;
        resultBytes += growth;
    }

    private void remove(Tally tally, ResultKey key) {
        Result old = tally.results.remove(key);
        if (old != null) {
            tally.bytes -= old.bytes();
            resultBytes -= old.bytes();
        }
    }

    /** Drops the rule's verdicts of existing objects: its scan restarts them. */
    @Override
    public synchronized void began(RuleFamily family, String rule) {
        scans.put(rule, true);
        RuleReports reports = rules.get(rule);
        if (reports == null) {
            return;
        }
        reports.totals.clear(Source.EXISTING);
        reports.folded[Source.EXISTING.ordinal()] = 0;
        clearExisting(reports.cluster);
        for (Iterator<Map.Entry<String, Tally>> it = reports.namespaces.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Tally> entry = it.next();
            clearExisting(entry.getValue());
            changed.add(new ReportKey(rule, entry.getKey()));
            if (entry.getValue().counts.isEmpty()) {
                it.remove(); // its Report is deleted
                namespacedReports--;
            }
        }
        changed.add(new ReportKey(rule, ""));
    }

    private void clearExisting(Tally tally) {
        tally.counts.clear(Source.EXISTING);
        tally.omitted[Source.EXISTING.ordinal()] = 0;
        tally.results.keySet().removeIf(key -> {
            if (key.source() != Source.EXISTING) {
                return false;
            }
            Result result = tally.results.get(key);
            tally.bytes -= result.bytes();
            resultBytes -= result.bytes();
            return true;
        });
    }

    /** Complete or not (a new scan or another leader takes over), the scan no longer runs here. */
    @Override
    public synchronized void ended(RuleFamily family, String rule, boolean complete) {
        scans.put(rule, false);
        changed.add(new ReportKey(rule, ""));
    }

    /**
     * The rules of a new rule set ({@code Snapshot.outcomeNames}): the reports of the others, deleted rules, are
     * deleted.
     */
    public synchronized void retain(Set<String> current) {
        scans.keySet().retainAll(current);
        List.copyOf(rules.keySet()).stream().filter(rule -> !current.contains(rule)).forEach(this::forget);
    }

    private void forget(String rule) {
        scans.remove(rule);
        RuleReports reports = rules.remove(rule);
        if (reports == null) {
            return;
        }
        markAll(rule, reports);
        namespacedReports -= reports.namespaces.size();
        resultBytes -= reports.cluster.bytes + reports.namespaces.values().stream().mapToLong(t -> t.bytes).sum();
    }

    private void markAll(String rule, RuleReports reports) {
        changed.add(new ReportKey(rule, ""));
        reports.namespaces.keySet().forEach(namespace -> changed.add(new ReportKey(rule, namespace)));
    }

    /** Every report: a replica that becomes leader writes them all. */
    public synchronized void touchAll() {
        rules.forEach(this::markAll);
    }

    /** The reports that changed since the last call (a report rendering empty is to be deleted). */
    public synchronized List<ReportKey> drainChanged() {
        var keys = new ArrayList<>(changed);
        changed.clear();
        return keys;
    }

    /** The report as it is now; empty if it no longer exists (its rule was deleted, or its namespace emptied). */
    public synchronized Optional<JsonObject> render(ReportKey key) {
        RuleReports reports = rules.get(key.rule());
        if (reports == null) {
            return Optional.empty();
        }
        Tally tally = key.cluster() ? reports.cluster : reports.namespaces.get(key.namespace());
        if (tally == null) {
            return Optional.empty();
        }
        var annotations = JSON.createObjectBuilder()
                .add(RULE_LABEL, key.rule())
                .add(MODE_ANNOTATION, reports.mode.written());
        if (tally.omitted() > 0) {
            annotations.add(OMITTED_ANNOTATION, Long.toString(tally.omitted()));
        }
        long folded = java.util.Arrays.stream(reports.folded).sum();
        if (key.cluster() && folded > 0) {
            annotations.add(FOLDED_ANNOTATION, Long.toString(folded));
        }
        Boolean scanning = scans.get(key.rule());
        if (key.cluster() && scanning != null) {
            annotations.add(SCAN_ANNOTATION, scanning ? "Running" : "Done");
        }
        var metadata = JSON.createObjectBuilder().add("name", key.name());
        if (!key.cluster()) {
            metadata.add("namespace", key.namespace());
        }
        metadata.add("labels", JSON.createObjectBuilder()
                        .add(MANAGED_BY, SOURCE)
                        .add(RULE_LABEL, ReportKey.labelSafe(key.rule()))
                        .add(FAMILY_LABEL, ReportKey.words(reports.family.name())))
                .add("annotations", annotations);
        Counts counts = key.cluster() ? reports.totals : tally.counts;
        var summary = JSON.createObjectBuilder();
        for (Status status : Status.values()) {
            summary.add(status.written(), counts.of(status));
        }
        summary.add("skip", 0);
        JsonArrayBuilder results = JSON.createArrayBuilder();
        tally.results.values().forEach(result -> results.add(JSON.createReader(new StringReader(result.json()))
                .readObject()));
        return Optional.of(JSON.createObjectBuilder()
                .add("apiVersion", API_VERSION)
                .add("kind", key.kind())
                .add("metadata", metadata)
                .add("source", SOURCE)
                .add("configuration", JSON.createObjectBuilder().add("limits",
                        JSON.createObjectBuilder().add("maxResults", limits.resultsPerReport())))
                .add("summary", summary)
                .add("results", results)
                .build());
    }

    /**
     * How a verdict reads in a report: unchanged passes; a change or a refusal fails (the rule finds the object not
     * as it wants it), but a Warn rule's refusal warns (it admitted the object with a warning); a failure is an error.
     */
    static Status status(Verdict verdict, RuleMode mode) {
        return switch (verdict) {
            case Verdict.Unchanged u -> Status.PASS;
            case Verdict.Changes c -> Status.FAIL;
            case Verdict.Refuses r -> mode == RuleMode.WARN ? Status.WARN : Status.FAIL;
            case Verdict.Fails f -> Status.ERROR;
        };
    }

    /** The result of a verdict that did not pass, its patch and message truncated to fit the bytes of a result. */
    private Result result(RuleFamily family, String rule, RuleMode mode, Source source, ObjectRef object,
            Verdict verdict, Status status) {
        String message = Truncation.cap(message(verdict, mode, source), limits.bytesPerResult() / 4);
        String patch = verdict instanceof Verdict.Changes changes ? changes.patch().toString() : null;
        int patchBudget = limits.bytesPerResult();
        while (true) {
            String text = resultJson(family, rule, mode, source, object, status, message,
                    patch == null ? null : Truncation.cap(patch, patchBudget)).toString();
            int bytes = text.getBytes(StandardCharsets.UTF_8).length;
            if (bytes <= limits.bytesPerResult() || patch == null || patchBudget == 0) {
                return new Result(text, bytes);
            }
            patchBudget = Math.max(0, patchBudget - (bytes - limits.bytesPerResult()) - 16);
        }
    }

    private JsonObject resultJson(RuleFamily family, String rule, RuleMode mode, Source source, ObjectRef object,
            Status status, String message, String patch) {
        var resource = JSON.createObjectBuilder().add("apiVersion", object.apiVersion()).add("kind", object.kind());
        if (!object.namespace().isEmpty()) {
            resource.add("namespace", object.namespace());
        }
        resource.add("name", object.name());
        JsonObjectBuilder properties = JSON.createObjectBuilder()
                .add("source", source.name().toLowerCase(java.util.Locale.ROOT))
                .add("mode", mode.written());
        if (patch != null) {
            properties.add("patch", patch);
        }
        return JSON.createObjectBuilder()
                .add("policy", rule)
                .add("category", family.name())
                .add("result", status.written())
                .add("timestamp", JSON.createObjectBuilder()
                        .add("seconds", clock.instant().getEpochSecond()).add("nanos", 0))
                .add("resources", JSON.createArrayBuilder().add(resource))
                .add("message", message)
                .add("properties", properties)
                .build();
    }

    private static String message(Verdict verdict, RuleMode mode, Source source) {
        boolean did = source == Source.ADMISSION && mode == RuleMode.ENFORCE; // else it did not act
        return switch (verdict) {
            case Verdict.Changes changes -> (did ? "changed it: " : "would change it: ") + changes.patch().size()
                    + " patch operation(s), in properties.patch";
            case Verdict.Refuses refuses -> did ? "refused it: " + refuses.message()
                    : mode == RuleMode.WARN && source == Source.ADMISSION
                    ? "admitted it with a warning (Warn): " + refuses.message()
                    : "would refuse it: " + refuses.message();
            case Verdict.Fails fails -> "failed: " + fails.error();
            case Verdict.Unchanged unchanged -> "left it unchanged";
        };
    }
}

package io.remold.server.existing;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.util.PatchUtils;
import io.remold.api.ExistingPolicy;
import io.remold.api.InvalidFieldException;
import io.remold.api.ModRuleException;
import io.remold.api.ModRules;
import io.remold.api.RuleControls;
import io.remold.api.RuleMode;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.Family.TargetKind;
import io.remold.rules.RuleAssembly;
import io.remold.rules.RuleSet;
import io.remold.rules.impact.ImpactScan;
import io.remold.rules.impact.ImpactSink;
import io.remold.rules.impact.ImpactTargets;
import io.remold.rules.impact.ScanListener;
import io.remold.server.existing.ImpactStatus.Counts;
import io.remold.server.existing.ImpactStatus.State;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The leader's impact scans: what each rule (of every family) would do to the objects that exist, scanned when the
 * rule is created or its spec changes (generation), when its {@value #REQUESTED_ANNOTATION} annotation takes a new
 * value, and, for a rule that applies to existing objects, every {@link ScanSettings#rescanInterval()}. One scan at
 * a time, on one low-priority thread, never on the admission path; a rule changed while it is scanned has its scan
 * stopped and started again for the new version.
 *
 * <p>What a scan found goes to the rule's {@code status.impact} for remold.io ModRules (whose CRD Remold ships with
 * that schema; the other families' CRDs would prune it, so there only the {@link ImpactSink} and the
 * {@link ScanListener} carry it). The status is also the scans' memory: a scan's progress is written after every
 * page, and a new leader resumes a Running scan from it; a rule whose status says it was scanned at its generation
 * and request is not scanned again.
 */
public final class ImpactScans implements RuleEvents, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ImpactScans.class.getName());
    /** Any new value asks for a new scan of the rule (for example a timestamp). */
    public static final String REQUESTED_ANNOTATION = "remold.io/impact-requested";
    /** The kinds to scan for a rule that may decide objects of any kind: {@code [group/]Kind}, comma-separated. */
    public static final String KINDS_ANNOTATION = "remold.io/impact-kinds";
    static final String REMOLD_GROUP = "remold.io";
    static final String KUBEMOD_GROUP = "api.kubemod.io";
    static final String MODRULES = "modrules";
    /** How often the worker looks for work without being told of any (a lost lease, a rescan falling due). */
    private static final long TICK_MILLIS = 1000;

    /** What scans need of the rule store: the families and the assembly its engines are built with. */
    public interface Rules {
        /** New instances of the families, with the store's settings; the caller closes them. */
        List<Family<?>> newFamilies();

        /** How a rule set on {@code families} becomes an engine, with the store's settings and sources. */
        RuleAssembly assembly(List<Family<?>> families);

        /** Why the store would keep the one rule of {@code single} out of force, or empty: a scan runs it not either. */
        Optional<String> refusal(RuleSet single);
    }

    /** One rule object, as last seen. */
    private record Rule(String group, String version, String plural, String namespace, String name,
                        JsonObject manifest, long generation, String requested, RuleControls controls,
                        String invalidControls) {
        String key() {
            return ImpactScans.key(group, version, plural, namespace, name);
        }

        /** Whether the leader applies the rule to existing objects after scanning them. */
        boolean applies() {
            return controls != null && controls.mode() == RuleMode.ENFORCE
                    && controls.existing() == ExistingPolicy.APPLY;
        }

        /** Whether its status holds {@code impact} (see the class comment). */
        boolean statusBearing() {
            return REMOLD_GROUP.equals(group) && MODRULES.equals(plural);
        }

        boolean sameVersion(Rule other) {
            return other != null && generation == other.generation && Objects.equals(requested, other.requested)
                    && Objects.equals(controls, other.controls);
        }
    }

    private final ApiClient client;
    private final CustomObjectsApi api;
    private final Rules store;
    private final ScanSettings settings;
    private final String systemNamespace;
    private final String kubemodSystemNamespace;
    private final ImpactSink sink;
    private final ScanListener listener;
    private final ExistingWrites writes;
    private final Clock clock;
    /** Guarded by this. */
    private final Map<String, Rule> rules = new LinkedHashMap<>();
    /** The status this replica last made per rule: newer than what the informer shows for a while. By this. */
    private final Map<String, ImpactStatus> made = new HashMap<>();
    /** Statuses whose write failed, tried again every tick. Guarded by this. */
    private final Map<String, ImpactStatus> unwritten = new HashMap<>();
    private boolean signalled;
    private volatile boolean closed;
    private volatile BooleanSupplier leader = () -> false;
    private volatile Function<String, JsonObject> namespaces = name -> null;
    private Thread worker;

    /**
     * @param kubemodSystemNamespace where api.kubemod.io ModRules are cluster-wide, or null
     * @param sink                   gets every verdict (source EXISTING)
     * @param listener               told when each rule's scan begins and ends
     * @param writes                 applies an Apply rule's changes to existing objects
     */
    public ImpactScans(ApiClient client, Rules store, ScanSettings settings, String systemNamespace,
                       String kubemodSystemNamespace, ImpactSink sink, ScanListener listener, ExistingWrites writes,
                       Clock clock) {
        this.client = client;
        this.api = new CustomObjectsApi(client);
        this.store = store;
        this.settings = settings;
        this.systemNamespace = systemNamespace;
        this.kubemodSystemNamespace = kubemodSystemNamespace;
        this.sink = sink;
        this.listener = listener;
        this.writes = writes;
        this.clock = clock;
    }

    /**
     * Starts scanning while {@code leader} holds; {@code namespaces} gives the Namespace object of a name (or null),
     * for rules that match on it.
     */
    public synchronized void start(BooleanSupplier leader, Function<String, JsonObject> namespaces) {
        this.leader = leader;
        this.namespaces = namespaces;
        worker = Thread.ofPlatform().daemon().priority(Thread.MIN_PRIORITY).name("remold-impact-scans")
                .start(this::work);
    }

    @Override
    public void changed(String group, String version, String plural, JsonObject manifest) {
        Optional<String> name = metadata(manifest, "name");
        if (name.isEmpty()) {
            return;
        }
        RuleControls controls = null;
        String invalid = null;
        try {
            controls = RuleControls.read(manifest);
        } catch (InvalidFieldException e) {
            invalid = e.getMessage();
        }
        long generation = manifest.get("metadata") instanceof JsonObject m
                && m.get("generation") instanceof JsonNumber n ? n.longValue() : 0;
        var rule = new Rule(group, version, plural, metadata(manifest, "namespace").orElse(null), name.get(),
                manifest, generation, annotation(manifest, REQUESTED_ANNOTATION).orElse(null), controls, invalid);
        synchronized (this) {
            rules.put(rule.key(), rule);
            signal();
        }
    }

    @Override
    public synchronized void removed(String group, String version, String plural, String namespace, String name) {
        String key = key(group, version, plural, namespace, name);
        rules.remove(key);
        made.remove(key);
        unwritten.remove(key);
        signal();
    }

    private synchronized void signal() {
        signalled = true;
        notifyAll();
    }

    @Override
    public void close() {
        closed = true;
        Thread thread;
        synchronized (this) {
            thread = worker;
            notifyAll();
        }
        if (thread != null) {
            thread.interrupt();
        }
    }

    private void work() {
        boolean leading = false;
        while (!closed) {
            try {
                synchronized (this) {
                    if (!signalled) {
                        wait(TICK_MILLIS);
                    }
                    signalled = false;
                }
            } catch (InterruptedException e) {
                return;
            }
            if (!leader.getAsBoolean()) {
                leading = false;
                continue;
            }
            if (!leading) {
                // Another leader may have scanned meanwhile: what the statuses say wins over what this one made.
                leading = true;
                synchronized (this) {
                    made.keySet().removeIf(key -> rules.get(key) == null || rules.get(key).statusBearing());
                    unwritten.clear();
                }
            }
            retryUnwritten();
            Rule due;
            while (!closed && leader.getAsBoolean() && (due = nextDue()) != null) {
                try {
                    scan(due);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) { // never let one rule stop the scans of the others
                    LOG.log(System.Logger.Level.WARNING, "impact scan of " + due.key() + " failed", e);
                    finish(due, ended(due, State.Failed, "the scan failed: " + e));
                }
            }
        }
    }

    private void retryUnwritten() {
        Map<String, ImpactStatus> retry;
        synchronized (this) {
            retry = new HashMap<>(unwritten);
        }
        retry.forEach((key, status) -> {
            Rule rule;
            synchronized (this) {
                rule = rules.get(key);
            }
            if (rule != null) {
                write(rule, status);
            }
        });
    }

    /** The first rule whose scan is due, in the order rules were first seen. */
    private synchronized Rule nextDue() {
        Instant now = clock.instant();
        for (Rule rule : rules.values()) {
            if (due(rule, known(rule), now)) {
                return rule;
            }
        }
        return null;
    }

    private ImpactStatus known(Rule rule) {
        ImpactStatus mine = made.get(rule.key());
        return mine != null || !rule.statusBearing() ? mine : ImpactStatus.of(rule.manifest());
    }

    private boolean due(Rule rule, ImpactStatus known, Instant now) {
        if (known == null || known.observedGeneration() != rule.generation()
                || !Objects.equals(known.requested(), rule.requested())) {
            return true;
        }
        return switch (known.state()) {
            case Running -> true; // stopped by a lost lease or a restart: resumed
            case Complete -> known.applies() != rule.applies() || rule.applies() && elapsed(known, now);
            case Failed, Forbidden -> elapsed(known, now);
            case KindsUnknown -> false;
        };
    }

    private boolean elapsed(ImpactStatus status, Instant now) {
        try {
            return status.completedAt() == null
                    || !now.isBefore(Instant.parse(status.completedAt()).plus(settings.rescanInterval()));
        } catch (java.time.format.DateTimeParseException e) {
            return true;
        }
    }

    private boolean current(Rule rule) {
        if (closed || !leader.getAsBoolean()) {
            return false;
        }
        synchronized (this) {
            return rule.sameVersion(rules.get(rule.key()));
        }
    }

    private void scan(Rule rule) throws InterruptedException {
        ImpactStatus known;
        synchronized (this) {
            known = known(rule);
        }
        if (rule.controls() == null) {
            finish(rule, ended(rule, State.Failed, rule.invalidControls()));
            return;
        }
        List<Family<?>> families = store.newFamilies();
        try {
            scan(rule, known, families);
        } finally {
            families.forEach(Family::close);
        }
    }

    private void scan(Rule rule, ImpactStatus known, List<Family<?>> families) throws InterruptedException {
        RuleSet single;
        try {
            single = single(rule, families);
        } catch (InvalidFieldException | ModRuleException e) {
            finish(rule, ended(rule, State.Failed, "the rule does not load: " + e.getMessage()));
            return;
        }
        Optional<String> refused = store.refusal(single);
        if (refused.isPresent()) {
            // Left out of the engine, it would decide nothing; a refused script must not run here either.
            finish(rule, ended(rule, State.Failed, "the rule is not in force: " + refused.get()));
            return;
        }
        Optional<Set<TargetKind>> targets = ImpactTargets.of(single, families).or(() -> annotatedKinds(rule));
        if (targets.isEmpty()) {
            finish(rule, ended(rule, State.KindsUnknown, "the rule may decide objects of any kind: name those to"
                    + " scan in its annotation " + KINDS_ANNOTATION + " ([group/]Kind, comma-separated)"));
            return;
        }
        boolean clusterWide = clusterWide(rule);
        ScannedKinds kinds;
        try {
            kinds = ScannedKinds.resolve(client, targets.get(), clusterWide);
        } catch (ApiException e) {
            finish(rule, ended(rule, State.Failed, "discovery of the kinds to scan failed: HTTP " + e.getCode()));
            return;
        }
        var scan = new ImpactScan(store.assembly(families), single, rule.controls().mode(),
                name -> namespaces.apply(name));
        if (!scan.disabled().isEmpty()) {
            finish(rule, ended(rule, State.Failed, "the rule is not in force even alone: "
                    + String.join("; ", scan.disabled().values())));
            return;
        }
        var notes = new ArrayList<String>();
        if (!kinds.unserved().isEmpty()) {
            notes.add("not served, not scanned: " + String.join(", ", kinds.unserved()));
        }
        if (!kinds.withheld().isEmpty()) {
            notes.add("not scanned for a namespaced rule: " + String.join(", ", kinds.withheld()));
        }
        String message = notes.isEmpty() ? null : String.join("; ", notes);
        ImpactStatus from = resumable(rule, known, kinds) ? known : new ImpactStatus(rule.generation(),
                rule.requested(), State.Running, message, Counts.ZERO, rule.applies(), List.of(), now(), null,
                kinds.kinds().isEmpty() ? null : ScanRun.first(kinds.kinds()));
        if (from != known) {
            write(rule, from);
        }
        listener.began(scan.family(), scan.rule());
        ImpactStatus end = null;
        ImpactStatus failed = null;
        try {
            var run = new ScanRun(scan, sink, rule.applies() ? writes : null, kinds.kinds(),
                    clusterWide ? null : rule.namespace(), client, settings, new Pacer(settings.rate()),
                    () -> current(rule), status -> write(rule, status));
            end = from.progress() == null ? from : run.walk(from);
        } catch (ScanRun.ListFailed e) {
            String where = clusterWide ? "" : " in namespace " + rule.namespace();
            failed = e.code == 403
                    ? ended(rule, State.Forbidden, "the server may not list " + e.kind.name() + where
                            + ": grant its ClusterRole list on them to scan them")
                    : ended(rule, State.Failed, "listing " + e.kind.name() + where + " failed: " + e.getMessage());
        } finally {
            // Before the status says Complete: what the listener records of the scan is then in place.
            listener.ended(scan.family(), scan.rule(), end != null);
        }
        if (end != null) {
            finish(rule, new ImpactStatus(end.observedGeneration(), end.requested(), State.Complete, end.message(),
                    end.counts(), end.applies(), end.samples(), end.startedAt(), now(), null));
            LOG.log(System.Logger.Level.INFO, "impact of {0}: {1}", rule.key(), end.counts());
        } else if (failed != null) {
            finish(rule, failed);
        }
    }

    /** Whether {@code known} is a Running scan of this version of the rule, over the same kinds, to resume. */
    private static boolean resumable(Rule rule, ImpactStatus known, ScannedKinds kinds) {
        if (known == null || known.state() != State.Running || known.progress() == null
                || known.observedGeneration() != rule.generation() || known.applies() != rule.applies()
                || !Objects.equals(known.requested(), rule.requested())) {
            return false;
        }
        int index = known.progress().kindIndex();
        return index >= 0 && index < kinds.kinds().size()
                && kinds.kinds().get(index).name().equals(known.progress().kind());
    }

    /** A scan that ended without walking (or stopped by a failure): its state and why. */
    private ImpactStatus ended(Rule rule, State state, String message) {
        String now = now();
        return new ImpactStatus(rule.generation(), rule.requested(), state, message, Counts.ZERO, rule.applies(),
                List.of(), now, now, null);
    }

    private void finish(Rule rule, ImpactStatus status) {
        if (!leader.getAsBoolean()) {
            return;
        }
        write(rule, status);
    }

    /** Keeps {@code status} as the rule's and writes it to the rule's status subresource, if it has one for it. */
    private void write(Rule rule, ImpactStatus status) {
        synchronized (this) {
            if (!rules.containsKey(rule.key())) {
                return; // removed meanwhile
            }
            made.put(rule.key(), status);
        }
        if (!rule.statusBearing()) {
            return;
        }
        var patch = new V1Patch(status.mergePatch());
        try {
            PatchUtils.patch(Object.class, () -> api.patchNamespacedCustomObjectStatus(rule.group(), rule.version(),
                    rule.namespace(), rule.plural(), rule.name(), patch).buildCall(null),
                    V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client);
            synchronized (this) {
                unwritten.remove(rule.key());
            }
        } catch (ApiException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot write the impact of {0}: {1} (trying again)", rule.key(),
                    e instanceof ApiException api ? "HTTP " + api.getCode() : e.toString());
            synchronized (this) {
                unwritten.put(rule.key(), status);
            }
        }
    }

    /**
     * Whether the rule decides objects in every namespace: a cluster-scoped rule, one in the system namespace, or an
     * api.kubemod.io ModRule in KubeMod's system namespace (as the engine decides). Any other lists only its own
     * namespace: a tenant must not learn of other namespaces' objects through its rule's status.
     */
    private boolean clusterWide(Rule rule) {
        return Engine.clusterWide(rule.namespace(), systemNamespace)
                || KUBEMOD_GROUP.equals(rule.group()) && rule.namespace().equals(kubemodSystemNamespace);
    }

    /** The one rule of a manifest, read by a scan's own families (a family may claim a ModRule form). */
    private static RuleSet single(Rule rule, List<Family<?>> families) {
        boolean modRule = MODRULES.equals(rule.plural())
                && (REMOLD_GROUP.equals(rule.group()) || KUBEMOD_GROUP.equals(rule.group()));
        for (Family<?> family : families) {
            if (modRule ? family.owns(rule.manifest()) : family.resources().stream().anyMatch(
                    r -> r.group().equals(rule.group()) && r.plural().equals(rule.plural()))) {
                return single(family, rule);
            }
        }
        if (!modRule) {
            throw new IllegalStateException("no rule family reads " + rule.group() + " " + rule.plural());
        }
        return new RuleSet(Map.of(rule.key(), ModRules.fromJson(rule.manifest(), "ModRule " + rule.name())),
                Map.of());
    }

    private static <R> RuleSet single(Family<R> family, Rule rule) {
        R parsed = family.parse(rule.manifest());
        return new RuleSet(Map.of(), Map.of(family.family(), new TreeMap<>(Map.of(rule.key(), parsed))));
    }

    /** The kinds of {@value #KINDS_ANNOTATION}: {@code apps/Deployment} (group and kind) or {@code Service} (core). */
    private static Optional<Set<TargetKind>> annotatedKinds(Rule rule) {
        return annotation(rule.manifest(), KINDS_ANNOTATION).map(text -> {
            var kinds = new HashSet<TargetKind>();
            for (String item : text.split(",")) {
                String kind = item.strip();
                if (kind.isEmpty()) {
                    continue;
                }
                int slash = kind.lastIndexOf('/');
                kinds.add(new TargetKind(slash < 0 ? "" : kind.substring(0, slash), kind.substring(slash + 1),
                        null));
            }
            return Set.copyOf(kinds);
        }).filter(kinds -> !kinds.isEmpty());
    }

    private String now() {
        return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** As the rule sink keys rules: {@code group/version/plural/namespace/name}, namespace empty when none. */
    private static String key(String group, String version, String plural, String namespace, String name) {
        return group + "/" + version + "/" + plural + "/" + (namespace == null ? "" : namespace) + "/" + name;
    }

    private static Optional<String> metadata(JsonObject manifest, String field) {
        return manifest.get("metadata") instanceof JsonObject m && m.get(field) instanceof JsonString s
                ? Optional.of(s.getString()) : Optional.empty();
    }

    private static Optional<String> annotation(JsonObject manifest, String key) {
        return manifest.get("metadata") instanceof JsonObject m && m.get("annotations") instanceof JsonObject a
                && a.get(key) instanceof JsonString s ? Optional.of(s.getString()) : Optional.empty();
    }
}

package io.remold.server.kube;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.remold.server.existing.RuleEvents;
import io.remold.server.rules.RuleSink;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Feeds the rules of one resource (ModRules of one API group, or one kind of Gatekeeper mutator) into the
 * {@link RuleSink} from informer events and keeps each rule's {@code Ready} condition up to date. A rule is recompiled only when its spec or generation changes, so our own
 * status writes (which come back as update events) cost nothing and cause no further write.
 */
final class RuleSource implements ResourceEventHandler<DynamicKubernetesObject> {
    private static final System.Logger LOG = System.getLogger(RuleSource.class.getName());

    /**
     * What we know of one rule: the spec we compiled, what compiling it said, the condition it deserves (the same,
     * unless a schema conflict disables the mutator or a script rule's start failed) and the one it has.
     */
    static final java.time.Duration REWRITE_AFTER = java.time.Duration.ofSeconds(30);

    private record Written(ReadyCondition condition, Instant at) {
    }

    private record Tracked(RuleRef ref, JsonValue spec, long generation, ReadyCondition compiled,
                           ReadyCondition desired, Optional<ReadyCondition.Observed> observed) {
        boolean needsWrite() {
            return observed.map(o -> !o.condition().equals(desired)).orElse(true);
        }
    }

    private final String group;
    private final String version;
    private final String plural;
    private final RuleLoader loader;
    private final RuleSink sink;
    private final StatusWriter status;
    private final BooleanSupplier leader;
    private final Clock clock;
    private final RuleEvents events;
    private final Map<String, Tracked> rules = new HashMap<>();
    /**
     * The condition last asked to be written per rule, and when: our write comes back as an update event only later,
     * so an event or the start-up catch-up in between must not ask for it again. A write that fails is retried by the
     * {@link WriteQueue}; an event after {@link #REWRITE_AFTER} that still shows another condition (someone changed
     * it back) asks again.
     */
    private final Map<String, Written> written = new HashMap<>();
    /** The mutators a schema conflict disables, by key, as the rule store last reported them. */
    private Map<String, String> conflicts = Map.of();
    /**
     * Why the last start of a script rule failed, by key, as the rule store reported it: kept across a new version
     * until that one's start ends (a version whose script did not change is not started again).
     */
    private final Map<String, String> startFailures = new HashMap<>();

    /** {@code events} is told of every version and removal of the rules (the impact scans). */
    RuleSource(String group, String version, String plural, RuleLoader loader, RuleSink sink, StatusWriter status,
               BooleanSupplier leader, Clock clock, RuleEvents events) {
        this.events = events;
        this.group = group;
        this.version = version;
        this.plural = plural;
        this.loader = loader;
        this.sink = sink;
        this.status = status;
        this.leader = leader;
        this.clock = clock;
    }

    @Override
    public void onAdd(DynamicKubernetesObject object) {
        apply(Manifests.toJson(object));
    }

    @Override
    public void onUpdate(DynamicKubernetesObject oldObject, DynamicKubernetesObject newObject) {
        apply(Manifests.toJson(newObject));
    }

    @Override
    public void onDelete(DynamicKubernetesObject object, boolean finalStateUnknown) {
        var meta = object.getMetadata();
        if (meta != null && meta.getName() != null) {
            remove(new RuleRef(group, version, plural, meta.getNamespace(), meta.getName()));
        }
    }

    /** Delivers one ModRule manifest (idempotent: the same spec again changes nothing). */
    synchronized void apply(JsonObject manifest) {
        Optional<String> name = Manifests.metadata(manifest, "name");
        if (name.isEmpty()) {
            return;
        }
        var ref = new RuleRef(group, version, plural, Manifests.metadata(manifest, "namespace").orElse(null),
                name.get());
        JsonValue spec = manifest.getOrDefault("spec", JsonValue.NULL);
        long generation = manifest.getJsonObject("metadata").get("generation") instanceof JsonNumber n
                ? n.longValue() : 0;
        Tracked previous = rules.get(ref.key());
        ReadyCondition compiled = previous != null && previous.generation() == generation
                && previous.spec().equals(spec) ? previous.compiled() : compile(ref, manifest, generation);
        var tracked = new Tracked(ref, spec, generation, compiled, desired(ref, compiled),
                ReadyCondition.observed(manifest));
        rules.put(ref.key(), tracked);
        writeIfLeader(tracked);
        events.changed(group, version, plural, manifest);
    }

    /** The rule store's latest schema conflicts: the mutators they disable are not Ready, the others are again. */
    synchronized void conflicts(Map<String, String> byKey) {
        conflicts = byKey;
        rules.replaceAll((key, t) -> new Tracked(t.ref(), t.spec(), t.generation(), t.compiled(),
                desired(t.ref(), t.compiled()), t.observed()));
        rules.values().forEach(this::writeIfLeader);
    }

    /** How the start of the script rule under {@code key} ended: a failure makes it not Ready, a success Ready again. */
    synchronized void scriptStarted(String key, Optional<String> failure) {
        Tracked t = rules.get(key);
        if (t == null) {
            return;
        }
        failure.ifPresentOrElse(why -> startFailures.put(key, why), () -> startFailures.remove(key));
        var tracked = new Tracked(t.ref(), t.spec(), t.generation(), t.compiled(), desired(t.ref(), t.compiled()),
                t.observed());
        rules.put(key, tracked);
        writeIfLeader(tracked);
    }

    /** The condition a rule deserves: what compiling it said, unless a schema conflict or a failed start disables it. */
    private ReadyCondition desired(RuleRef ref, ReadyCondition compiled) {
        String conflict = conflicts.get(ref.key());
        String startFailure = startFailures.get(ref.key());
        if (!compiled.ready() || conflict == null && startFailure == null) {
            return compiled;
        }
        return conflict != null ? ReadyCondition.conflict(conflict, compiled.observedGeneration())
                : ReadyCondition.startFailed(startFailure, compiled.observedGeneration());
    }

    synchronized void remove(RuleRef ref) {
        events.removed(ref.group(), ref.version(), ref.plural(), ref.namespace(), ref.name());
        written.remove(ref.key());
        startFailures.remove(ref.key());
        if (rules.remove(ref.key()) != null) {
            sink.remove(ref.key());
            LOG.log(System.Logger.Level.INFO, "rule {0} removed", ref);
        }
    }

    /** Called on becoming leader: writes every condition that is missing or stale. */
    synchronized void writePending() {
        rules.values().forEach(this::writeIfLeader);
    }

    private ReadyCondition compile(RuleRef ref, JsonObject manifest, long generation) {
        ReadyCondition condition = loader.load(ref, manifest, generation, sink);
        if (condition.ready()) {
            LOG.log(System.Logger.Level.INFO, "rule {0} loaded (generation {1})", ref, generation);
        } else {
            LOG.log(System.Logger.Level.WARNING, "rule {0} skipped: {1}", ref, condition.message());
        }
        return condition;
    }

    private void writeIfLeader(Tracked tracked) {
        if (!tracked.needsWrite() || !leader.getAsBoolean()) {
            return;
        }
        Instant now = Instant.now(clock);
        Written last = written.get(tracked.ref().key());
        if (last != null && last.condition().equals(tracked.desired()) && now.isBefore(last.at().plus(REWRITE_AFTER))) {
            return; // already on its way
        }
        String since = tracked.observed()
                .filter(o -> o.condition().ready() == tracked.desired().ready() && o.lastTransitionTime() != null)
                .map(ReadyCondition.Observed::lastTransitionTime)
                .orElseGet(() -> now.truncatedTo(ChronoUnit.SECONDS).toString());
        status.write(tracked.ref(), tracked.desired(), since);
        written.put(tracked.ref().key(), new Written(tracked.desired(), now));
    }
}

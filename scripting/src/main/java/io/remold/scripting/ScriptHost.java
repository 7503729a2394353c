package io.remold.scripting;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * The long-lived side of script rules: the threads and watchdog that run calls, each rule's state (kept across
 * rule set changes while the rule's manifest stays the same) and the create/update/delete events of the kinds the
 * scripts name. A new rule gets {@code jsa_init}, then a {@code jsa_created} for every object of its kinds that
 * {@link #existing} knows; events arrive more than once (informers list again), so each rule remembers which objects
 * it was told of. A rule starts (loads, {@code jsa_init}, {@code jsa_created}) on a thread of its own, within
 * {@value #START_FACTOR} call deadlines in total; {@link #stage} waits at most {@value #STAGE_WAIT_FACTOR} call
 * deadlines for its new rules, and a rule slower than that joins its stage once started (until then it is skipped,
 * as a rule not yet loaded). Thread-safe; events and starts call scripts outside the host's monitor, so neither a
 * slow start nor a slow event handler holds up the other events or the next rule set.
 */
public final class ScriptHost implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Scripts.class.getName());

    /** One rule's start in total, in call deadlines: creating the first contexts is slow, and so may be a top level. */
    private static final int START_FACTOR = 10;
    /** How long {@link #stage} waits for its new rules to start, in call deadlines. */
    private static final int STAGE_WAIT_FACTOR = 2;

    private final ScriptLimits limits;
    private final Calls calls;
    private final Map<String, RuleRuntime> runtimes = new HashMap<>();
    private final ExecutorService starts =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("remold-script-start-", 0).factory());
    private volatile Function<String, Collection<JsonObject>> existing = resource -> List.of();
    private volatile JsonObject seed;
    private volatile BiConsumer<ScriptRule, Optional<String>> onStarted = (rule, failure) -> { };

    ScriptHost(ScriptLimits limits) {
        this.limits = limits;
        this.calls = new Calls(limits);
    }

    ScriptLimits limits() {
        return limits;
    }

    /** Where a new rule's initial objects come from: the current objects of a resource (plural, as {@code pods}). */
    public void existing(Function<String, Collection<JsonObject>> objects) {
        this.existing = objects;
    }

    /** A state every new rule starts from, over what its {@code jsa_init} made ({@code eval --state}). */
    public synchronized void seed(JsonObject state) {
        this.seed = state;
    }

    /**
     * Where each rule's start ends: the rule and why its start failed (top level, {@code jsa_init}, or the start-up
     * budget spent), or empty. Called on the start's thread, possibly after {@link #stage} returned.
     */
    public void onStarted(BiConsumer<ScriptRule, Optional<String>> listener) {
        this.onStarted = listener;
    }

    /** The resources (plural) some script names in {@code kinds} and handles events of. */
    public synchronized Set<String> watchedKinds() {
        var out = new TreeSet<String>();
        for (RuleRuntime r : runtimes.values()) {
            if (r.rule.has(Signatures.CREATED) || r.rule.has(Signatures.UPDATED) || r.rule.has(Signatures.DELETED)) {
                out.addAll(r.rule.kinds());
            }
        }
        return out;
    }

    /**
     * The engine stage of this rule set: rules whose manifest did not change keep their state, new ones are
     * initialized now, removed ones are dropped. Namespaced rules run before cluster-wide ones, each in name order.
     */
    public ScriptStage stage(Collection<ScriptRule> rules) {
        var ordered = new ArrayList<RuleRuntime>();
        var starting = new ArrayList<CompletableFuture<Void>>();
        synchronized (this) {
            var next = new HashMap<String, RuleRuntime>();
            for (ScriptRule rule : rules) {
                RuleRuntime current = runtimes.get(rule.id());
                if (current != null && current.rule.equals(rule)) {
                    next.put(rule.id(), current);
                } else {
                    var runtime = new RuleRuntime(rule, calls, limits);
                    next.put(rule.id(), runtime);
                    try {
                        starting.add(CompletableFuture.runAsync(() -> start(runtime), starts));
                    } catch (RejectedExecutionException e) {
                        runtime.started(); // the host is closed: its calls fail with why
                    }
                }
            }
            runtimes.forEach((id, runtime) -> {
                if (next.get(id) != runtime) {
                    runtime.close();
                }
            });
            runtimes.clear();
            runtimes.putAll(next);
            ordered.addAll(next.values());
        }
        try {
            CompletableFuture.allOf(starting.toArray(CompletableFuture[]::new))
                    .get(STAGE_WAIT_FACTOR * limits.callDeadline().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            LOG.info(starting.stream().filter(f -> !f.isDone()).count() + " script rule(s) still starting: each"
                    + " joins the rules once started");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            LOG.warning("starting a script rule failed: " + e.getCause());
        }
        ordered.sort(Comparator.<RuleRuntime>comparingInt(r -> r.rule.clusterWide() ? 1 : 0)
                .thenComparing(r -> r.rule.name()).thenComparing(r -> r.rule.id()));
        return new ScriptStage(this, List.copyOf(ordered));
    }

    /** The state of a rule now (JSON text), or null: for tests and {@code eval --explain}. */
    public synchronized String state(String ruleId) {
        RuleRuntime r = runtimes.get(ruleId);
        return r == null ? null : r.state();
    }

    /** Loads the rule's script, runs jsa_init and tells it of the objects that exist, then lets it join its stage. */
    private void start(RuleRuntime runtime) {
        Optional<String> failure;
        try {
            failure = startWithin(runtime, System.nanoTime() + START_FACTOR * limits.callDeadline().toNanos());
        } finally {
            runtime.started();
        }
        onStarted.accept(runtime.rule, failure);
    }

    /** Why the start failed, or empty. */
    private Optional<String> startWithin(RuleRuntime runtime, long end) {
        ScriptRule rule = runtime.rule;
        String failure = null;
        try {
            // Creating the first contexts is slow while the interpreter warms up: not within a request's deadline.
            runtime.warm(end);
            runtime.call(Signatures.INIT, null, null, null, Math.min(deadline(), end));
        } catch (Calls.Failed | RuleRuntime.ScriptError e) {
            failure = "loading the script or jsa_init failed: " + e.getMessage();
            LOG.warning(rule.id() + ": " + failure + "; the state starts empty");
        }
        JsonObject seed = this.seed;
        if (seed != null) {
            var merged = jakarta.json.spi.JsonProvider.provider().createObjectBuilder(
                    (JsonObject) io.remold.json.JsonTree.parse(runtime.state().getBytes(
                            java.nio.charset.StandardCharsets.UTF_8)));
            seed.forEach(merged::add);
            runtime.seed(merged.build().toString());
        }
        for (String resource : rule.kinds()) {
            for (JsonObject object : existing.apply(resource)) {
                if (System.nanoTime() - end >= 0) {
                    failure = "its start-up budget of " + START_FACTOR * limits.callDeadline().toMillis()
                            + " ms is spent: it is not told of the other existing " + resource;
                    LOG.warning(rule.id() + ": " + failure);
                    return Optional.of(failure);
                }
                if (receives(rule, resource, object)) {
                    created(runtime, object);
                }
            }
        }
        return Optional.ofNullable(failure);
    }

    /** The rules now, to call outside the monitor. */
    private synchronized List<RuleRuntime> current() {
        return List.copyOf(runtimes.values());
    }

    /** An object of {@code resource} (plural) was created (or listed). */
    public void created(String resource, JsonObject object) {
        for (RuleRuntime r : current()) {
            if (receives(r.rule, resource, object)) {
                created(r, object);
            }
        }
    }

    /** An object of {@code resource} changed; a resync that changed nothing (same resourceVersion) is skipped. */
    public void updated(String resource, JsonObject old, JsonObject object) {
        if (old != null && resourceVersion(old) != null && resourceVersion(old).equals(resourceVersion(object))) {
            return;
        }
        for (RuleRuntime r : current()) {
            if (!receives(r.rule, resource, object)) {
                continue;
            }
            if (r.known.add(key(object))) {
                event(r, Signatures.CREATED, object, null); // its creation was missed
            } else {
                event(r, Signatures.UPDATED, object, old);
            }
        }
    }

    /** An object of {@code resource} was deleted. */
    public void deleted(String resource, JsonObject object) {
        for (RuleRuntime r : current()) {
            if (receives(r.rule, resource, object) && r.known.remove(key(object))) {
                event(r, Signatures.DELETED, object, null);
            }
        }
    }

    /**
     * Whether a rule is told of an object of {@code resource}: one of its kinds and, for a namespaced rule, in its
     * namespace (a tenant's script never learns of another namespace's objects).
     */
    private static boolean receives(ScriptRule rule, String resource, JsonObject object) {
        if (!rule.kinds().contains(resource)) {
            return false;
        }
        return rule.clusterWide()
                || object.get("metadata") instanceof JsonObject m && m.get("namespace") instanceof JsonString ns
                && ns.getString().equals(rule.namespace());
    }

    private void created(RuleRuntime r, JsonObject object) {
        if (r.known.add(key(object))) {
            event(r, Signatures.CREATED, object, null);
        }
    }

    /** Calls {@code function} with {@code object} (named in the log) and {@code old}. */
    private void event(RuleRuntime r, String function, JsonObject object, JsonObject old) {
        try {
            r.call(function, null, object, old, deadline());
        } catch (Calls.Failed | RuleRuntime.ScriptError e) {
            LOG.warning(r.rule.id() + ": " + function + " failed for " + key(object) + ", the state is unchanged: "
                    + e.getMessage());
        }
    }

    long deadline() {
        return System.nanoTime() + limits.callDeadline().toNanos();
    }

    private static String key(JsonObject object) {
        JsonValue metadata = object.get("metadata");
        if (metadata instanceof JsonObject m) {
            if (m.get("uid") instanceof JsonString uid && !uid.getString().isEmpty()) {
                return uid.getString();
            }
            return (m.get("namespace") instanceof JsonString ns ? ns.getString() : "") + "/"
                    + (m.get("name") instanceof JsonString n ? n.getString() : "");
        }
        return "/";
    }

    private static String resourceVersion(JsonObject object) {
        return object.get("metadata") instanceof JsonObject m && m.get("resourceVersion") instanceof JsonString rv
                ? rv.getString() : null;
    }

    /**
     * CPU time this host's script calls took on its threads, in all (of the calls that ended): what running its rules
     * cost besides the callers' own threads.
     */
    public long cpuNanos() {
        return calls.cpuNanos();
    }

    @Override
    public synchronized void close() {
        runtimes.values().forEach(RuleRuntime::close);
        runtimes.clear();
        starts.shutdownNow();
        calls.close();
    }
}

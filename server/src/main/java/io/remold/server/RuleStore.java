package io.remold.server;

import io.remold.api.ModRule;
import io.remold.api.Provider;
import io.remold.engine.Engine;
import io.remold.engine.RuleCompilation;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.scripting.ScriptHost;
import io.remold.scripting.ScriptLimits;
import io.remold.scripting.ScriptRule;
import io.remold.scripting.ScriptStage;
import io.remold.scripting.Scripts;
import io.remold.server.external.HttpsProviders;
import io.remold.server.rules.ReferenceSource;
import io.remold.server.rules.RuleSink;
import io.remold.server.rules.ScriptEvents;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The current rules (ModRules and Gatekeeper mutators) as an immutable {@link Engine} snapshot that requests read without locking.
 *
 * <p>Building a snapshot compiles every rule (seconds for 10,000 rules), so builds are coalesced: nothing is built
 * before the source reports {@link #synced()} or inside a {@link #batch}, and after that one background thread
 * builds from the latest rules whenever something changed, so a burst of single changes costs one or two builds,
 * not one each. Requests keep using the previous snapshot meanwhile. {@link #synced()} and {@link #batch} return
 * once a snapshot with their changes is in place. Closing stops the builds and the script rules' threads.
 */
final class RuleStore implements RuleSink, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RuleStore.class.getName());

    private final String systemNamespace;
    private final Metrics metrics;
    /** By source key, sorted: of two rules with one namespace/name the engine keeps the later, so that is stable. */
    private final Map<String, ModRule> rules = new TreeMap<>();
    private final Map<String, Mutator> mutators = new TreeMap<>();
    private final Map<String, ScriptRule> scripts = new TreeMap<>();
    private final Map<String, Provider> providers = new TreeMap<>();
    /** The Providers in force; engines hold it, so a Provider change needs no build. */
    private final HttpsProviders externalData = new HttpsProviders();
    /**
     * Created by the first build with a script rule (a server without scripts never loads GraalJS); used on the
     * build thread only, and closed there too, after the last build.
     */
    private ScriptHost scriptHost;
    private final List<Consumer<Map<String, String>>> conflictListeners = new CopyOnWriteArrayList<>();
    /** The keys of the mutators a schema conflict disabled at the last build, with why; written by builds only. */
    private Map<String, String> lastConflicts = Map.of();
    private final AtomicReference<Engine> engine;
    /** One thread, so that snapshots are installed in the order their rules were read. */
    private final ExecutorService builder =
            Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("remold-rule-build").factory());
    private boolean synced;
    private boolean closed;
    private int batchDepth;
    /** The build that has not started yet (it reads the rules when it starts), or null. */
    private CompletableFuture<Void> pendingBuild;
    /** Where rules' references are looked up (cluster mode); told the referenced kinds after each build. */
    private volatile ReferenceSource references;
    /** Where script rules' events come from (cluster mode); told the host and the resources scripts name. */
    private volatile ScriptEvents scriptEvents;

    RuleStore(String systemNamespace, Metrics metrics) {
        this.systemNamespace = systemNamespace;
        this.metrics = metrics;
        this.engine = new AtomicReference<>(Engine.builder().systemNamespace(systemNamespace).build());
        metrics.externalData(externalData::writeMetrics);
    }

    /** Sets where rules' references are looked up; before the source syncs. */
    void references(ReferenceSource source) {
        this.references = source;
    }

    /** Sets where script rules' events come from; before the source syncs. */
    void scriptEvents(ScriptEvents source) {
        this.scriptEvents = source;
    }

    /** The snapshot to decide a request with. */
    Engine engine() {
        return engine.get();
    }

    /**
     * Compiles a rule as this store's engines do: what its namespace forbids is a problem too, and so is a reference
     * the reference source is known to refuse.
     */
    RuleCompilation compile(ModRule rule) {
        RuleCompilation compilation = Engine.compile(rule, systemNamespace);
        ReferenceSource source = references;
        if (source == null || rule.spec().references().isEmpty()) {
            return compilation;
        }
        boolean clusterWide = Engine.clusterWide(rule.namespace(), systemNamespace);
        var problems = new java.util.ArrayList<>(compilation.errors());
        var references = rule.spec().references();
        for (int i = 0; i < references.size(); i++) {
            int at = i;
            source.refusal(references.get(i).apiVersion(), references.get(i).kind(), clusterWide).ifPresent(why ->
                    problems.add(new RuleCompilation.Problem("spec.references[" + at + "].kind", 0, why)));
        }
        return new RuleCompilation(compilation.rule(), problems);
    }

    synchronized boolean isSynced() {
        return synced;
    }

    @Override
    public synchronized RuleCompilation put(String key, ModRule rule) {
        RuleCompilation compilation = compile(rule);
        ModRule previous = compilation.ok() ? rules.put(key, rule) : rules.remove(key);
        if (!compilation.ok()) {
            LOG.warning("ModRule " + rule.id() + " from " + key + " is invalid and skipped: " + compilation.errors());
        }
        if (compilation.ok() || previous != null) {
            changed();
        }
        return compilation;
    }

    @Override
    public synchronized void putMutator(String key, Mutator mutator) {
        mutators.put(key, mutator);
        changed();
    }

    @Override
    public synchronized void putScript(String key, ScriptRule rule) {
        scripts.put(key, rule);
        changed();
    }

    @Override
    public synchronized void putProvider(String key, Provider provider) {
        providers.put(key, provider);
        externalData.use(providers.values());
    }

    @Override
    public synchronized void remove(String key) {
        if (providers.remove(key) != null) {
            externalData.use(providers.values());
        }
        if (rules.remove(key) != null | mutators.remove(key) != null | scripts.remove(key) != null) {
            changed();
        }
    }

    @Override
    public void synced() {
        CompletableFuture<Void> build;
        synchronized (this) {
            if (synced) {
                return;
            }
            synced = true;
            build = queueBuild();
        }
        await(build);
    }

    /** Applies several changes; returns once they are in the engine (if synced). */
    void batch(Consumer<RuleSink> changes) {
        CompletableFuture<Void> build = null;
        synchronized (this) {
            batchDepth++;
            try {
                changes.accept(this);
            } finally {
                batchDepth--;
            }
            if (synced && batchDepth == 0) {
                build = queueBuild();
            }
        }
        if (build != null) {
            await(build);
        }
    }

    private void changed() {
        if (synced && batchDepth == 0) {
            queueBuild();
        }
    }

    /** Returns the build that has not started yet, or queues one (none once closed). Called holding the lock. */
    private CompletableFuture<Void> queueBuild() {
        if (closed) {
            return CompletableFuture.completedFuture(null);
        }
        if (pendingBuild == null) {
            pendingBuild = CompletableFuture.runAsync(this::build, builder);
        }
        return pendingBuild;
    }

    private void build() {
        List<ModRule> current;
        Map<String, Mutator> currentMutators;
        List<ScriptRule> currentScripts;
        synchronized (this) {
            pendingBuild = null; // changes from now on need a new build
            current = List.copyOf(rules.values());
            currentMutators = Map.copyOf(mutators);
            currentScripts = List.copyOf(scripts.values());
            warnAboutDuplicates();
        }
        // Not under the lock: put, remove and isSynced (the readiness probe) must not wait for the host to start.
        if (scriptHost == null && !currentScripts.isEmpty()) {
            scriptHost = Scripts.host(ScriptLimits.defaults());
        }
        ScriptHost host = scriptHost;
        long start = System.nanoTime();
        try {
            Gatekeeper.Stage mutation = Gatekeeper.stage(List.copyOf(currentMutators.values()), externalData);
            mutation.conflicts().forEach((id, why) ->
                    LOG.warning("Gatekeeper mutator " + id + " is disabled by a schema conflict: " + why));
            Engine.Builder builder = Engine.builder().systemNamespace(systemNamespace).rules(current).stage(mutation)
                    .externalData(externalData);
            if (host != null) {
                ScriptStage scriptStage = host.stage(currentScripts);
                builder.stage(scriptStage).validationStage(scriptStage);
            }
            ReferenceSource source = references;
            if (source != null) {
                builder.references(source);
            }
            Engine next = builder.build();
            engine.set(next);
            if (source != null) {
                source.use(referencedKinds(current));
            }
            ScriptEvents events = scriptEvents;
            if (host != null && events != null) {
                events.use(host, host.watchedKinds());
            }
            metrics.rulesRebuilt(next.ruleCount(), mutation.ruleCount(), System.nanoTime() - start);
            metrics.retainRules(outcomeNames(current, currentMutators.values(), currentScripts));
            reportConflicts(currentMutators, mutation);
        } catch (RuntimeException e) {
            // The previous snapshot stays in force; the next change tries again.
            LOG.log(Level.SEVERE, "building the rule engine from " + current.size() + " rules failed", e);
            throw e;
        }
    }

    /** How the engine's outcomes name these rules (the metrics' rule label). */
    private static Set<String> outcomeNames(List<ModRule> rules, Collection<Mutator> mutators,
                                            List<ScriptRule> scripts) {
        var names = new HashSet<String>();
        rules.forEach(rule -> names.add(rule.id()));
        mutators.forEach(mutator -> names.add(mutator.id().toString()));
        scripts.forEach(script -> names.add(script.id()));
        names.add(Gatekeeper.SYSTEM);
        return names;
    }

    @Override
    public void onMutatorConflicts(Consumer<Map<String, String>> listener) {
        conflictListeners.add(listener);
    }

    /** Tells the listeners which mutators (by key) the new stage disables, when that changed. Builds run one at a time. */
    private void reportConflicts(Map<String, Mutator> byKey, Gatekeeper.Stage mutation) {
        var conflicts = new TreeMap<String, String>();
        byKey.forEach((key, mutator) -> {
            String why = mutation.conflicts().get(mutator.id());
            if (why != null) {
                conflicts.put(key, why);
            }
        });
        if (!conflicts.equals(lastConflicts)) {
            lastConflicts = Map.copyOf(conflicts);
            conflictListeners.forEach(listener -> listener.accept(lastConflicts));
        }
    }

    /** {@code apiVersion kind} of every reference of the rules. */
    private static java.util.Set<String> referencedKinds(List<ModRule> rules) {
        var kinds = new java.util.TreeSet<String>();
        for (ModRule rule : rules) {
            rule.spec().references().forEach(r -> kinds.add(r.apiVersion() + " " + r.kind()));
        }
        return kinds;
    }

    /** The engine knows a rule by namespace and name: two sources of one name would silently shadow each other. */
    private void warnAboutDuplicates() {
        var keyById = new HashMap<String, String>();
        rules.forEach((key, rule) -> {
            String other = keyById.put(rule.id(), key);
            if (other != null) {
                LOG.warning("ModRule " + rule.id() + " comes from both " + other + " and " + key + "; only the one from "
                        + key + " is used");
            }
        });
    }

    /**
     * Stops building (changes from now on are kept but not built) and closes the script rules' host once the builds
     * already queued are done. The last snapshot stays in force, but its script rules fail from then on: close the
     * store after the server.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
            if (scriptHost != null) {
                scriptHost.close();
            }
        }, builder);
        builder.shutdown();
        await(closing);
        externalData.close();
    }

    private static void await(CompletableFuture<Void> build) {
        try {
            build.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("building the rule engine failed: " + e.getCause(), e.getCause());
        }
    }
}

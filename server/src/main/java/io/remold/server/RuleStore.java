package io.remold.server;

import io.remold.api.ModRule;
import io.remold.engine.Engine;
import io.remold.engine.RuleCompilation;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.server.rules.RuleSink;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
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
 * once a snapshot with their changes is in place.
 */
final class RuleStore implements RuleSink {
    private static final Logger LOG = Logger.getLogger(RuleStore.class.getName());

    private final String systemNamespace;
    private final Metrics metrics;
    /** By source key, sorted: of two rules with one namespace/name the engine keeps the later, so that is stable. */
    private final Map<String, ModRule> rules = new TreeMap<>();
    private final Map<String, Mutator> mutators = new TreeMap<>();
    private final AtomicReference<Engine> engine;
    /** One thread, so that snapshots are installed in the order their rules were read. */
    private final ExecutorService builder =
            Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("remold-rule-build").factory());
    private boolean synced;
    private int batchDepth;
    /** The build that has not started yet (it reads the rules when it starts), or null. */
    private CompletableFuture<Void> pendingBuild;

    RuleStore(String systemNamespace, Metrics metrics) {
        this.systemNamespace = systemNamespace;
        this.metrics = metrics;
        this.engine = new AtomicReference<>(Engine.builder().systemNamespace(systemNamespace).build());
    }

    /** The snapshot to decide a request with. */
    Engine engine() {
        return engine.get();
    }

    synchronized boolean isSynced() {
        return synced;
    }

    @Override
    public synchronized RuleCompilation put(String key, ModRule rule) {
        RuleCompilation compilation = Engine.compile(rule);
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
    public synchronized void remove(String key) {
        if (rules.remove(key) != null | mutators.remove(key) != null) {
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

    /** Returns the build that has not started yet, or queues one. Called holding the lock. */
    private CompletableFuture<Void> queueBuild() {
        if (pendingBuild == null) {
            pendingBuild = CompletableFuture.runAsync(this::build, builder);
        }
        return pendingBuild;
    }

    private void build() {
        List<ModRule> current;
        List<Mutator> currentMutators;
        synchronized (this) {
            pendingBuild = null; // changes from now on need a new build
            current = List.copyOf(rules.values());
            currentMutators = List.copyOf(mutators.values());
            warnAboutDuplicates();
        }
        long start = System.nanoTime();
        try {
            Gatekeeper.Stage mutation = Gatekeeper.stage(currentMutators);
            mutation.conflicts().forEach((id, why) ->
                    LOG.warning("Gatekeeper mutator " + id + " is disabled by a schema conflict: " + why));
            Engine next = Engine.builder().systemNamespace(systemNamespace).rules(current).stage(mutation).build();
            engine.set(next);
            metrics.rulesRebuilt(next.ruleCount(), next.stageRuleCount(), System.nanoTime() - start);
        } catch (RuntimeException e) {
            // The previous snapshot stays in force; the next change tries again.
            LOG.log(Level.SEVERE, "building the rule engine from " + current.size() + " rules failed", e);
            throw e;
        }
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

package io.remold.server;

import io.remold.api.ModRule;
import io.remold.engine.Engine;
import io.remold.engine.RuleCompilation;
import io.remold.server.rules.RuleSink;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The current rules as an immutable {@link Engine} snapshot that requests read without locking. Every change
 * rebuilds the snapshot; until the source reports {@link #synced()} (and inside {@link #batch}) rebuilding waits,
 * so an initial list of thousands of rules is compiled into an engine once, not once per rule.
 */
final class RuleStore implements RuleSink {
    private static final Logger LOG = Logger.getLogger(RuleStore.class.getName());

    private final String systemNamespace;
    private final Metrics metrics;
    private final Map<String, ModRule> rules = new HashMap<>();
    private final AtomicReference<Engine> engine;
    private boolean synced;
    private int batchDepth;

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
    public synchronized void remove(String key) {
        if (rules.remove(key) != null) {
            changed();
        }
    }

    @Override
    public synchronized void synced() {
        if (!synced) {
            synced = true;
            changed();
        }
    }

    /** Applies several changes with one rebuild at the end. */
    synchronized void batch(Consumer<RuleSink> changes) {
        batchDepth++;
        try {
            changes.accept(this);
        } finally {
            batchDepth--;
        }
        changed();
    }

    private void changed() {
        if (!synced || batchDepth > 0) {
            return;
        }
        long start = System.nanoTime();
        Engine next = Engine.builder().systemNamespace(systemNamespace).rules(rules.values()).build();
        engine.set(next);
        metrics.rulesRebuilt(next.ruleCount(), System.nanoTime() - start);
    }
}

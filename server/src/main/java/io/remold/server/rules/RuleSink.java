package io.remold.server.rules;

import io.remold.api.ModRule;
import io.remold.api.Provider;
import io.remold.engine.RuleCompilation;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.scripting.ScriptRule;

import java.util.Map;
import java.util.function.Consumer;

/**
 * Where rule sources (a folder, the cluster's informers) deliver ModRules and Gatekeeper mutators. Keys are stable per source object,
 * for example {@code remold.io/v1beta1/ns/name}. Implementations swap in a new immutable engine snapshot after
 * each change.
 */
public interface RuleSink {
    /** Adds or replaces the rule under {@code key}; returns its compilation (a broken rule is kept out). */
    RuleCompilation put(String key, ModRule rule);

    /** Adds or replaces the Gatekeeper mutator under {@code key} (compiled: an invalid one never gets here). */
    void putMutator(String key, Mutator mutator);

    /** Adds or replaces the script rule under {@code key} (compiled: an invalid one never gets here). */
    default void putScript(String key, ScriptRule rule) {
        throw new UnsupportedOperationException("this rule source takes no script rules: " + rule.id());
    }

    /** Adds or replaces the external data Provider under {@code key} (checked: an invalid one never gets here). */
    default void putProvider(String key, Provider provider) {
        throw new UnsupportedOperationException("this rule source takes no Providers: " + provider.name());
    }

    /** Removes the rule, mutator or Provider under {@code key}, if any. */
    void remove(String key);

    /** The source has delivered its initial state: the server may report ready. */
    void synced();

    /**
     * Registers {@code listener} for the mutators that a schema conflict disables (key to Gatekeeper's reason): called
     * after each engine build that changes that map. Sinks without mutator status ignore it.
     */
    default void onMutatorConflicts(Consumer<Map<String, String>> listener) {
    }
}

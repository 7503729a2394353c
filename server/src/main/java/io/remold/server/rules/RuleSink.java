package io.remold.server.rules;

import io.remold.api.ModRule;
import io.remold.api.Provider;
import io.remold.api.RuleControls;
import io.remold.engine.RuleCompilation;
import io.remold.engine.Family;
import io.remold.rules.Snapshot;

import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Where rule sources (a folder, the cluster's informers) deliver rules of every family and external data Providers.
 * Keys are stable per source object, for example {@code remold.io/v1beta1/ns/name}. Implementations swap in a new
 * immutable {@link Snapshot} after each change.
 */
public interface RuleSink {
    /** The rule families beside ModRules that the sink takes, in the order their stages run. */
    List<Family<?>> families();

    /**
     * Adds or replaces the rule under {@code key}, with its mode and existing policy; returns its compilation (a broken
     * rule is kept out).
     */
    RuleCompilation put(String key, ModRule rule, RuleControls controls);

    /** An enforced rule (a test's, or a source without controls). */
    default RuleCompilation put(String key, ModRule rule) {
        return put(key, rule, RuleControls.DEFAULTS);
    }

    /**
     * Adds or replaces the rule of {@code family} under {@code key} (parsed: an invalid one never gets here), with its
     * mode and existing policy; or, when the sink may not run it (a script rule that {@link
     * io.remold.rules.TenantScripts} refuses), removes what {@code key} held and returns why.
     */
    <R> Optional<String> put(String key, Family<R> family, R rule, RuleControls controls);

    /** An enforced rule of {@code family}. */
    default <R> Optional<String> put(String key, Family<R> family, R rule) {
        return put(key, family, rule, RuleControls.DEFAULTS);
    }

    /** Adds or replaces the external data Provider under {@code key} (checked: an invalid one never gets here). */
    void putProvider(String key, Provider provider);

    /** Removes the rule (of whatever family) or Provider under {@code key}, if any. */
    void remove(String key);

    /** The source has delivered its initial state: the server may report ready. */
    void synced();

    /**
     * Registers {@code listener} for each snapshot the sink installs: called once per snapshot, after it is in force,
     * on the thread that built it (a listener that writes elsewhere hands the work on), in the order listeners were
     * registered.
     */
    void onSnapshot(Consumer<Snapshot> listener);

    /**
     * Registers {@code listener} for the end of each script rule's start (key, and why it failed or empty): called on
     * the start's thread, which may end after the engine build that installed the rule.
     */
    void onScriptStarts(BiConsumer<String, Optional<String>> listener);
}

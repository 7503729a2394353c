package io.remold.engine;

import io.remold.api.ModRule;

import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * ModRules compiled once and shared, by the rule's value (id and spec): the rule store checks a rule when it arrives
 * ({@link Engine#compile(ModRule, String, CompiledRules)}) and builds engines with it later
 * ({@code Engine.builder().compiled(...)}); both take its compilation from here, and after each build the store keeps
 * only the rules it holds ({@link #retain}). Thread-safe.
 */
public final class CompiledRules {
    /** A {@link CompiledRule}, or the {@link CompiledRule.Invalid} that says why the rule does not compile. */
    private final Map<ModRule, Object> byRule = new ConcurrentHashMap<>();

    /** The rule compiled, from here when an equal rule was compiled before. */
    CompiledRule compile(ModRule rule) throws CompiledRule.Invalid {
        Object known = byRule.get(rule);
        if (known == null) {
            known = CompiledRule.compileOrExplain(rule);
            Object raced = byRule.putIfAbsent(rule, known);
            known = raced != null ? raced : known;
        }
        if (known instanceof CompiledRule.Invalid invalid) {
            throw invalid;
        }
        return (CompiledRule) known;
    }

    /** Drops the compilations of every rule not among {@code rules} (the rules in force). */
    public void retain(Collection<ModRule> rules) {
        byRule.keySet().retainAll(new HashSet<>(rules));
    }
}

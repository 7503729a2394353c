package io.remold.server.kube;

import io.remold.api.ModRule;
import io.remold.api.Provider;
import io.remold.engine.RuleCompilation;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.scripting.ScriptRule;
import io.remold.server.rules.RuleSink;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Records what it was told. Compiling is the sink's business (the engine's, tested there): here a rule whose
 * first select is {@code broken} fails, every other one compiles.
 */
final class RecordingSink implements RuleSink {
    final Map<String, ModRule> rules = new LinkedHashMap<>();
    final Map<String, Mutator> mutators = new LinkedHashMap<>();
    final Map<String, ScriptRule> scripts = new LinkedHashMap<>();
    final Map<String, Provider> providers = new LinkedHashMap<>();
    final List<String> puts = new ArrayList<>();
    final List<String> removes = new ArrayList<>();
    volatile boolean synced;

    @Override
    public synchronized RuleCompilation put(String key, ModRule rule) {
        puts.add(key);
        RuleCompilation compilation = new RuleCompilation(rule.id(),
                "broken".equals(rule.spec().match().getFirst().select())
                        ? List.of(new RuleCompilation.Problem("spec.match[0].select", 3, "unexpected end"))
                        : List.of());
        if (compilation.ok()) {
            rules.put(key, rule);
        } else {
            rules.remove(key);
        }
        return compilation;
    }

    @Override
    public synchronized void putMutator(String key, Mutator mutator) {
        puts.add(key);
        mutators.put(key, mutator);
    }

    @Override
    public synchronized void putScript(String key, ScriptRule rule) {
        puts.add(key);
        scripts.put(key, rule);
    }

    @Override
    public synchronized void putProvider(String key, Provider provider) {
        puts.add(key);
        providers.put(key, provider);
    }

    @Override
    public synchronized void remove(String key) {
        providers.remove(key);
        mutators.remove(key);
        scripts.remove(key);
        removes.add(key);
        rules.remove(key);
    }

    synchronized List<String> keys() {
        return List.copyOf(rules.keySet());
    }

    synchronized List<String> puts() {
        return List.copyOf(puts);
    }

    synchronized List<String> removes() {
        return List.copyOf(removes);
    }

    @Override
    public void synced() {
        synced = true;
    }
}

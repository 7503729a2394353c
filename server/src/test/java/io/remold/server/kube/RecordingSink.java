package io.remold.server.kube;

import io.remold.api.ModRule;
import io.remold.api.Provider;
import io.remold.engine.Family;
import io.remold.engine.RuleCompilation;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.rules.Families;
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
    /** The controls each key was put with. */
    final Map<String, io.remold.api.RuleControls> controls = new LinkedHashMap<>();
    final List<String> removes = new ArrayList<>();
    volatile boolean synced;
    /** Read with, never compiled. */
    private static final List<Family<?>> FAMILIES = Families.create();

    @Override
    public synchronized RuleCompilation put(String key, ModRule rule, io.remold.api.RuleControls controls) {
        puts.add(key);
        this.controls.put(key, controls);
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
    public List<Family<?>> families() {
        return FAMILIES;
    }

    @Override
    public synchronized <R> java.util.Optional<String> put(String key, Family<R> family, R rule,
                                                          io.remold.api.RuleControls controls) {
        puts.add(key);
        this.controls.put(key, controls);
        switch (rule) {
            case Mutator mutator -> mutators.put(key, mutator);
            case ScriptRule script -> scripts.put(key, script);
            default -> throw new IllegalArgumentException("a rule of no family here: " + rule);
        }
        return java.util.Optional.empty();
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

    @Override
    public void onSnapshot(java.util.function.Consumer<io.remold.rules.Snapshot> listener) {
    }

    @Override
    public void onScriptStarts(java.util.function.BiConsumer<String, java.util.Optional<String>> listener) {
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

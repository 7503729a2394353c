package io.remold.rules;

import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.RuleFamily;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What one {@link RuleSet} compiles to ({@link RuleAssembly#assemble}): the engine that decides requests, and what
 * the store's listeners need of it: the kinds the ModRules reference ({@code apiVersion kind}), what each family's
 * compilation made (its runtime, the resources that runtime receives events of, the rules it disables, its rule
 * count), how outcomes name the set's rules (the metrics' rule label), and how long the assembly took.
 */
public record Snapshot(Engine engine, Set<String> referencedKinds, Map<RuleFamily, Family.Compiled> families,
                       Set<String> outcomeNames, long buildNanos) {
    public Snapshot {
        referencedKinds = Set.copyOf(referencedKinds);
        families = Map.copyOf(families);
        outcomeNames = Set.copyOf(outcomeNames);
    }

    /** The rules the families disable (a schema conflict among Gatekeeper's mutators), by key, with why. */
    public Map<String, String> disabled() {
        var disabled = new TreeMap<String, String>();
        families.values().forEach(compiled -> disabled.putAll(compiled.disabled()));
        return disabled;
    }

    /** The resources (plural) the families' runtimes receive events of (scripts' {@code spec.kinds}). */
    public Set<String> watchedResources() {
        return families.values().stream().flatMap(compiled -> compiled.watchedResources().stream())
                .collect(Collectors.toUnmodifiableSet());
    }

    /** The runtime of type {@code type} a family's stage runs on (the script host), if one is in use. */
    public <T> Optional<T> runtime(Class<T> type) {
        return families.values().stream().flatMap(compiled -> compiled.runtime().stream())
                .filter(type::isInstance).map(type::cast).findFirst();
    }

    /** The number of rules of {@code family} in the engine's stages. */
    public int ruleCount(RuleFamily family) {
        Family.Compiled compiled = families.get(family);
        return compiled == null ? 0 : compiled.ruleCount();
    }
}

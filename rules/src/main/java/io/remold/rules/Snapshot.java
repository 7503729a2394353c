package io.remold.rules;

import io.remold.api.RuleMode;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.Rejection;
import io.remold.engine.RuleFamily;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What one {@link RuleSet} compiles to ({@link RuleAssembly#assemble}): the engine that decides requests (the rules
 * in mode Enforce or Warn), and what the store's listeners need of it: the kinds the rules reference ({@code
 * apiVersion kind}), what each family's compilation made (its runtime, the resources that runtime receives events of,
 * the rules it disables, its rule count), how outcomes name the set's rules (the metrics' rule label), the mode of
 * each rule that is not enforced (by outcome name), the snapshot of the Shadow rules (their own engine, evaluated off
 * the admission path; empty without any), and how long the assembly took. The kinds and outcome names include the
 * Shadow rules': their references are read from the same caches, and their verdicts are counted.
 */
public record Snapshot(Engine engine, Set<String> referencedKinds, Map<RuleFamily, Family.Compiled> families,
                       Set<String> outcomeNames, Map<String, RuleMode> modes, Optional<Snapshot> shadow,
                       long buildNanos) {
    public Snapshot {
        referencedKinds = Set.copyOf(referencedKinds);
        families = Map.copyOf(families);
        outcomeNames = Set.copyOf(outcomeNames);
        modes = Map.copyOf(modes);
    }

    /** The mode of the rule outcomes name {@code rule}. */
    public RuleMode mode(String rule) {
        return modes.getOrDefault(rule, RuleMode.ENFORCE);
    }

    /** The decision as it is enforced: without the refusals of rules in mode Warn, which {@link #warned} gives. */
    public Decision enforced(Decision decision) {
        if (modes.isEmpty() || decision.allowed()) {
            return decision;
        }
        return new Decision(decision.result(), decision.patch(),
                decision.rejections().stream().filter(r -> mode(r.rule()) != RuleMode.WARN).toList(),
                decision.outcomes());
    }

    /**
     * The refusals of rules in mode Warn, each as the webhook's warning words it: {@code <family> <rule> would refuse:
     * <message>}.
     */
    public List<String> warned(Decision decision) {
        if (modes.isEmpty()) {
            return List.of();
        }
        return decision.rejections().stream().filter(r -> mode(r.rule()) == RuleMode.WARN)
                .map(r -> r.family().name() + " " + r.rule() + " would refuse"
                        + (r.message() == null ? "" : ": " + r.message()))
                .toList();
    }

    /** The rules in mode Warn that refused in {@code decision}, by outcome name (the audit annotation lists them). */
    public List<String> warnedRules(Decision decision) {
        return decision.rejections().stream().map(Rejection::rule).filter(rule -> mode(rule) == RuleMode.WARN)
                .distinct().toList();
    }

    /** The rules the families disable (a schema conflict among Gatekeeper's mutators), by key, with why. */
    public Map<String, String> disabled() {
        var disabled = new TreeMap<String, String>();
        families.values().forEach(compiled -> disabled.putAll(compiled.disabled()));
        shadow.ifPresent(s -> disabled.putAll(s.disabled()));
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

package io.remold.rules;

import io.remold.api.ModRule;
import io.remold.api.RuleMode;
import io.remold.engine.CompiledRules;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.ReferenceResolver;
import io.remold.engine.RuleFamily;
import io.remold.templating.ExternalData;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The one way a rule set becomes a {@link Snapshot}: used by {@code eval} once and by the rule store on every change,
 * so that both decide alike. Pure but for the families' runtimes: it compiles, and reads or writes nothing; the
 * families (and so their runtimes, such as the script host) are the caller's ({@link Families#create}), and so are
 * the rules' compilations ({@code compiled}: the store's, so that a rule checked when it arrived is not compiled again).
 * The engine runs the ModRules, then each family's stage in the order of {@code families}.
 *
 * <p>The rules in mode Enforce and Warn make the snapshot's engine; the Shadow rules make a second snapshot with
 * {@code shadowFamilies}, other instances of the same families: a family instance compiles one set at a time (the
 * script host closes the runtimes of rules not in the set it is given), and a Shadow rule must never change what
 * the enforcing engine does.
 */
public record RuleAssembly(String systemNamespace, String kubemodSystemNamespace, ExternalData externalData,
                           ReferenceResolver references, CompiledRules compiled, List<Family<?>> families,
                           List<Family<?>> shadowFamilies) {
    public RuleAssembly {
        families = List.copyOf(families);
        shadowFamilies = List.copyOf(shadowFamilies);
    }

    /** Compiles on the caller's thread: the families' runtimes are used on one thread at a time. */
    public Snapshot assemble(RuleSet set) {
        long start = System.nanoTime();
        RuleSet shadowRules = set.inModes(mode -> mode == RuleMode.SHADOW);
        Optional<Snapshot> shadow = shadowRules.controls().isEmpty() ? Optional.empty()
                : Optional.of(assemble(shadowRules, shadowFamilies, Optional.empty(), start));
        return assemble(set.inModes(mode -> mode != RuleMode.SHADOW), families, shadow, start);
    }

    private Snapshot assemble(RuleSet set, List<Family<?>> familyInstances, Optional<Snapshot> shadow, long start) {
        Engine.Builder builder = Engine.builder().systemNamespace(systemNamespace)
                .kubemodSystemNamespace(kubemodSystemNamespace).rules(set.rules().values())
                .externalData(externalData).references(references).compiled(compiled);
        var byFamily = new HashMap<RuleFamily, Family.Compiled>();
        var names = new HashSet<String>();
        var modes = new HashMap<String, RuleMode>();
        set.rules().forEach((key, rule) -> {
            names.add(rule.id());
            addMode(modes, set, key, rule.id());
        });
        for (Family<?> family : familyInstances) {
            Family.Compiled stage = compile(family, set, modes);
            stage.stage().ifPresent(builder::stage);
            names.addAll(stage.outcomeNames());
            byFamily.put(family.family(), stage);
        }
        var kinds = referencedKinds(set, familyInstances);
        shadow.ifPresent(s -> {
            kinds.addAll(s.referencedKinds());
            names.addAll(s.outcomeNames());
            modes.putAll(s.modes());
        });
        builder.warned(modes.entrySet().stream().filter(e -> e.getValue() == RuleMode.WARN).map(Map.Entry::getKey)
                .collect(Collectors.toSet()));
        return new Snapshot(builder.build(), kinds, byFamily, names, modes, shadow, System.nanoTime() - start);
    }

    private static void addMode(Map<String, RuleMode> modes, RuleSet set, String key, String outcomeName) {
        RuleMode mode = set.mode(key);
        if (mode != RuleMode.ENFORCE) {
            modes.put(outcomeName, mode);
        }
    }

    private static <R> Family.Compiled compile(Family<R> family, RuleSet set, Map<String, RuleMode> modes) {
        set.familyRules(family).forEach((key, rule) -> addMode(modes, set, key, family.id(rule)));
        return family.compile(set.familyRules(family));
    }

    /** {@code apiVersion kind} of every reference of the rules, the families' rules' too. */
    private static Set<String> referencedKinds(RuleSet set, List<Family<?>> familyInstances) {
        var kinds = new TreeSet<String>();
        for (ModRule rule : set.rules().values()) {
            rule.spec().references().forEach(r -> kinds.add(r.apiVersion() + " " + r.kind()));
        }
        familyInstances.forEach(family -> addReferencedKinds(family, set, kinds));
        return kinds;
    }

    private static <R> void addReferencedKinds(Family<R> family, RuleSet set, Set<String> into) {
        set.familyRules(family).values().forEach(rule -> family.referencedKinds(rule)
                .forEach(kind -> into.add(kind.key())));
    }
}

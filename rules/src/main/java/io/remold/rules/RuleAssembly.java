package io.remold.rules;

import io.remold.api.ModRule;
import io.remold.engine.CompiledRules;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.ReferenceResolver;
import io.remold.engine.RuleFamily;
import io.remold.templating.ExternalData;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The one way a rule set becomes a {@link Snapshot}: used by {@code eval} once and by the rule store on every change,
 * so that both decide alike. Pure but for the families' runtimes: it compiles, and reads or writes nothing; the
 * families (and so their runtimes, such as the script host) are the caller's ({@link Families#create}), and so are
 * the rules' compilations ({@code compiled}: the store's, so that a rule checked when it arrived is not compiled again).
 * The engine runs the ModRules, then each family's stage in the order of {@code families}.
 */
public record RuleAssembly(String systemNamespace, String kubemodSystemNamespace, ExternalData externalData,
                           ReferenceResolver references, CompiledRules compiled, List<Family<?>> families) {
    public RuleAssembly {
        families = List.copyOf(families);
    }

    /** Compiles on the caller's thread: the families' runtimes are used on one thread at a time. */
    public Snapshot assemble(RuleSet set) {
        long start = System.nanoTime();
        Engine.Builder builder = Engine.builder().systemNamespace(systemNamespace)
                .kubemodSystemNamespace(kubemodSystemNamespace).rules(set.rules().values())
                .externalData(externalData).references(references).compiled(compiled);
        var byFamily = new HashMap<RuleFamily, Family.Compiled>();
        var names = new HashSet<String>();
        set.rules().values().forEach(rule -> names.add(rule.id()));
        for (Family<?> family : families) {
            Family.Compiled stage = compile(family, set);
            stage.stage().ifPresent(builder::stage);
            names.addAll(stage.outcomeNames());
            byFamily.put(family.family(), stage);
        }
        return new Snapshot(builder.build(), referencedKinds(set), byFamily, names, System.nanoTime() - start);
    }

    private static <R> Family.Compiled compile(Family<R> family, RuleSet set) {
        return family.compile(set.familyRules(family));
    }

    /** {@code apiVersion kind} of every reference of the rules, the families' rules' too. */
    private Set<String> referencedKinds(RuleSet set) {
        var kinds = new TreeSet<String>();
        for (ModRule rule : set.rules().values()) {
            rule.spec().references().forEach(r -> kinds.add(r.apiVersion() + " " + r.kind()));
        }
        families.forEach(family -> addReferencedKinds(family, set, kinds));
        return kinds;
    }

    private static <R> void addReferencedKinds(Family<R> family, RuleSet set, Set<String> into) {
        set.familyRules(family).values().forEach(rule -> family.referencedKinds(rule)
                .forEach(kind -> into.add(kind.key())));
    }
}

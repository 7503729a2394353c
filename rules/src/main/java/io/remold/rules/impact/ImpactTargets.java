package io.remold.rules.impact;

import io.remold.api.MatchItem;
import io.remold.api.ModRule;
import io.remold.engine.Family;
import io.remold.engine.Family.TargetKind;
import io.remold.rules.RuleSet;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The kinds of object a rule can decide, so that an impact scan lists only those: a family's from its
 * {@link Family#targetKinds}, a ModRule's from match items that require {@code $.kind} (and {@code $.apiVersion}) to
 * be constants. Empty: the rule may decide any kind, and a scan needs the kinds named.
 */
public final class ImpactTargets {
    private ImpactTargets() {
    }

    /** The targets of the one rule of {@code single}, of whichever family of {@code families}. */
    public static Optional<Set<TargetKind>> of(RuleSet single, List<Family<?>> families) {
        if (!single.rules().isEmpty()) {
            return of(single.rules().values().iterator().next());
        }
        for (Family<?> family : families) {
            Optional<Set<TargetKind>> targets = firstOf(family, single);
            if (targets != null) {
                return targets;
            }
        }
        return Optional.empty();
    }

    /** Null when the set has no rule of {@code family}. */
    private static <R> Optional<Set<TargetKind>> firstOf(Family<R> family, RuleSet single) {
        var rules = single.familyRules(family);
        return rules.isEmpty() ? null : family.targetKinds(rules.values().iterator().next());
    }

    /** A ModRule's: the constants its {@code $.kind} items require, in the group its {@code $.apiVersion} requires. */
    static Optional<Set<TargetKind>> of(ModRule rule) {
        Set<String> kinds = null;
        Set<String> groups = null;
        for (MatchItem item : rule.spec().match()) {
            Set<String> constants = constants(item);
            if (constants == null) {
                continue;
            }
            String select = item.select().replace(" ", "");
            if (select.equals("$.kind")) {
                kinds = intersection(kinds, constants);
            } else if (select.equals("$.apiVersion")) {
                var required = new HashSet<String>();
                constants.forEach(apiVersion -> required.add(TargetKind.groupOf(apiVersion)));
                groups = intersection(groups, required);
            }
        }
        if (kinds == null) {
            return Optional.empty();
        }
        var targets = new HashSet<TargetKind>();
        for (String kind : kinds) {
            if (groups == null) {
                targets.add(new TargetKind(null, kind, null));
            } else {
                groups.forEach(group -> targets.add(new TargetKind(group, kind, null)));
            }
        }
        return Optional.of(Set.copyOf(targets));
    }

    /** The values a positive item requires its selection to equal, or null when it is no such item. */
    private static Set<String> constants(MatchItem item) {
        if (item.negate()) {
            return null;
        }
        if (item.matchValue() != null) {
            return Set.of(item.matchValue());
        }
        return item.matchValues().isEmpty() ? null : Set.copyOf(item.matchValues());
    }

    private static Set<String> intersection(Set<String> so, Set<String> more) {
        if (so == null) {
            return more;
        }
        var both = new HashSet<>(so);
        both.retainAll(more);
        return both;
    }
}

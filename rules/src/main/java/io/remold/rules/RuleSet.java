package io.remold.rules;

import io.remold.api.ModRule;
import io.remold.engine.Family;
import io.remold.engine.RuleFamily;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The rules in force, by family and by source key: the store's keys ({@code remold.io/v1beta1/ns/name}, {@code
 * file#3}), or the position of a file's rule. Keys are sorted: of two ModRules with one namespace/name the engine keeps
 * the later, so which one wins is stable. Immutable.
 */
public record RuleSet(Map<String, ModRule> rules, Map<RuleFamily, SortedMap<String, ?>> families) {
    public static final RuleSet EMPTY = new RuleSet(Map.of(), Map.of());

    public RuleSet {
        rules = Collections.unmodifiableSortedMap(new TreeMap<>(rules));
        var copy = new HashMap<RuleFamily, SortedMap<String, ?>>();
        families.forEach((family, byKey) -> copy.put(family, Collections.unmodifiableSortedMap(new TreeMap<>(byKey))));
        families = Map.copyOf(copy);
    }

    /** The rules of files, each family in the order read (as {@code eval} reads them): keyed by position. */
    public static RuleSet of(List<? extends RuleDocuments.Entry> entries) {
        var rules = new TreeMap<String, ModRule>();
        var families = new HashMap<RuleFamily, SortedMap<String, ?>>();
        for (RuleDocuments.Entry entry : entries) {
            switch (entry) {
                case RuleDocuments.RuleEntry r -> rules.put(position(rules.size()), r.rule());
                case RuleDocuments.FamilyEntry<?> f -> add(families, f);
            }
        }
        return new RuleSet(rules, families);
    }

    @SuppressWarnings("unchecked") // each family's map holds only its own rules
    private static <R> void add(Map<RuleFamily, SortedMap<String, ?>> families, RuleDocuments.FamilyEntry<R> entry) {
        var byKey = (SortedMap<String, R>) families.computeIfAbsent(entry.family().family(), f -> new TreeMap<>());
        byKey.put(position(byKey.size()), entry.rule());
    }

    private static String position(int index) {
        return "%09d".formatted(index);
    }

    /** The rules of {@code family}, by key (empty when the set has none). */
    @SuppressWarnings("unchecked") // each family's map holds only its own rules
    public <R> SortedMap<String, R> familyRules(Family<R> family) {
        return (SortedMap<String, R>) families.getOrDefault(family.family(), Collections.emptySortedMap());
    }
}

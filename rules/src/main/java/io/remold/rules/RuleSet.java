package io.remold.rules;

import io.remold.api.ModRule;
import io.remold.api.RuleControls;
import io.remold.api.RuleMode;
import io.remold.engine.Family;
import io.remold.engine.RuleFamily;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The rules in force, by family and by source key: the store's keys ({@code remold.io/v1beta1/ns/name}, {@code
 * file#3}), or the position of a file's rule. Keys are sorted: of two ModRules with one namespace/name the engine keeps
 * the later, so which one wins is stable. {@code controls} holds each key's mode and existing policy (a key it lacks
 * is Enforce, Ignore). Immutable.
 */
public record RuleSet(Map<String, ModRule> rules, Map<RuleFamily, SortedMap<String, ?>> families,
                      Map<String, RuleControls> controls) {
    public static final RuleSet EMPTY = new RuleSet(Map.of(), Map.of());

    public RuleSet {
        rules = Collections.unmodifiableSortedMap(new TreeMap<>(rules));
        var copy = new HashMap<RuleFamily, SortedMap<String, ?>>();
        families.forEach((family, byKey) -> copy.put(family, Collections.unmodifiableSortedMap(new TreeMap<>(byKey))));
        families = Map.copyOf(copy);
        controls = Map.copyOf(controls);
    }

    /** Every rule enforced. */
    public RuleSet(Map<String, ModRule> rules, Map<RuleFamily, SortedMap<String, ?>> families) {
        this(rules, families, Map.of());
    }

    /**
     * The rules of files, each family in the order read (as {@code eval} reads them): keyed by position among all the
     * entries, so that one key names one rule whatever its family.
     */
    public static RuleSet of(List<? extends RuleDocuments.Entry> entries) {
        var rules = new TreeMap<String, ModRule>();
        var families = new HashMap<RuleFamily, SortedMap<String, ?>>();
        var controls = new HashMap<String, RuleControls>();
        for (int i = 0; i < entries.size(); i++) {
            RuleDocuments.Entry entry = entries.get(i);
            String key = "%09d".formatted(i);
            controls.put(key, entry.controls());
            switch (entry) {
                case RuleDocuments.RuleEntry r -> rules.put(key, r.rule());
                case RuleDocuments.FamilyEntry<?> f -> add(families, key, f);
            }
        }
        return new RuleSet(rules, families, controls);
    }

    @SuppressWarnings("unchecked") // each family's map holds only its own rules
    private static <R> void add(Map<RuleFamily, SortedMap<String, ?>> families, String key,
                                RuleDocuments.FamilyEntry<R> entry) {
        ((SortedMap<String, R>) families.computeIfAbsent(entry.family().family(), f -> new TreeMap<>()))
                .put(key, entry.rule());
    }

    /** The rules of {@code family}, by key (empty when the set has none). */
    @SuppressWarnings("unchecked") // each family's map holds only its own rules
    public <R> SortedMap<String, R> familyRules(Family<R> family) {
        return (SortedMap<String, R>) families.getOrDefault(family.family(), Collections.emptySortedMap());
    }

    /** The mode of the rule under {@code key}. */
    public RuleMode mode(String key) {
        return controls.getOrDefault(key, RuleControls.DEFAULTS).mode();
    }

    /** The rules whose mode {@code included} takes, with their controls: the enforcing engine's, or the shadow's. */
    public RuleSet inModes(Predicate<RuleMode> included) {
        Predicate<String> keep = key -> included.test(mode(key));
        var keptFamilies = new HashMap<RuleFamily, SortedMap<String, ?>>();
        families.forEach((family, byKey) -> keptFamilies.put(family, filtered(byKey, keep)));
        return new RuleSet(filtered(rules, keep), keptFamilies, filtered(controls, keep));
    }

    private static <V> SortedMap<String, V> filtered(Map<String, V> byKey, Predicate<String> keep) {
        var kept = new TreeMap<String, V>();
        byKey.forEach((key, value) -> {
            if (keep.test(key)) {
                kept.put(key, value);
            }
        });
        return kept;
    }
}

package io.remold.gatekeeper.convert;

import io.remold.engine.convert.CannotConvert;
import io.remold.engine.convert.Conversion;
import io.remold.api.ModRule;
import io.remold.api.ModRuleSpec;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.gatekeeper.match.InvalidMatchException;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.mutators.MutatorId;
import jakarta.json.JsonObject;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Gatekeeper mutators as {@code remold.io} ModRules that change every object as Gatekeeper's stage does (the entry
 * point of {@code remold convert} into this module). Each mutator takes its own tiers from {@code firstTier} on, in
 * Gatekeeper's order (by id); a mutator is refused when it has no exact equivalent alone ({@link MutatorRules}),
 * when Gatekeeper disables it (schema conflicts), or when converting it would change what the set does
 * ({@link Interference}).
 */
public final class MutatorConversion {
    private MutatorConversion() {
    }

    /** A parsed mutator and the manifest it was parsed from, which holds the parameters converting reads. */
    public record Source(Mutator mutator, JsonObject manifest) {
    }

    /** Every mutator's conversion, in Gatekeeper's order; rules are cluster-wide in {@code systemNamespace}. */
    public static Map<MutatorId, Conversion> convert(Collection<Source> mutators, String systemNamespace,
                                                     int firstTier) {
        List<Source> ordered = mutators.stream().sorted(Comparator.comparing(s -> s.mutator().id())).toList();
        Map<MutatorId, String> conflicts = Gatekeeper.conflicts(ordered.stream().map(Source::mutator).toList());
        var results = new LinkedHashMap<MutatorId, Conversion>();
        int tier = firstTier;
        for (Source source : ordered) {
            MutatorId id = source.mutator().id();
            Conversion result = conflicts.containsKey(id)
                    ? new Conversion.Refused("Gatekeeper disables it: " + conflicts.get(id))
                    : convert(source, systemNamespace, tier);
            if (result instanceof Conversion.Converted c) {
                tier += c.rules().size();
            }
            results.put(id, result);
        }
        Set<MutatorId> refused = new HashSet<>();
        results.forEach((id, r) -> {
            if (r instanceof Conversion.Refused) {
                refused.add(id);
            }
        });
        var footprints = ordered.stream().map(s -> Interference.Footprint.of(s.mutator(), s.manifest())).toList();
        Interference.find(footprints, refused).forEach((id, why) -> results.put(id, new Conversion.Refused(why)));
        return results;
    }

    private static Conversion convert(Source source, String systemNamespace, int tier) {
        try {
            List<ModRule> rules = MutatorRules.convert(source.manifest(), source.mutator(), systemNamespace, tier);
            if (tier + rules.size() - 1 > ModRuleSpec.MAX_TIER) {
                throw new CannotConvert("no executionTier left after " + ModRuleSpec.MAX_TIER
                        + " (lower --first-tier)");
            }
            return Conversion.checked(rules);
        } catch (CannotConvert | InvalidMatchException e) {
            return new Conversion.Refused(e.getMessage());
        }
    }
}

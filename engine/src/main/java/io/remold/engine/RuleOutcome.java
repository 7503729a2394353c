package io.remold.engine;

import jakarta.json.JsonArray;

import java.util.List;
import java.util.Objects;

/**
 * What one rule of {@code family} did for a request. Rules that matched are always reported; rules that did not
 * match only when the request asked for an explanation. {@code failedMatchItem} is the index of the first match item
 * that did not hold (-1 if none), with {@code reason}; {@code applied} holds the operations the rule performed (empty
 * when it failed), {@code error} why it failed or null, {@code references} how each of the rule's references was
 * resolved (when it got that far), then, when the request asks for an explanation, what each of its calls to an
 * external data provider answered (lines starting {@code external }). {@code held}, when the request asks for an
 * explanation, says why a rule that applied matched: each of its match items with what it selected (a ModRule's
 * {@code spec.match[0] ($.kind) matchValue "Pod": selected "Pod"}); empty when its family does not say.
 */
public record RuleOutcome(RuleFamily family, String rule, int tier, boolean matched, int failedMatchItem,
                          String reason, JsonArray applied, String error, List<String> references,
                          List<String> held) {
    public RuleOutcome {
        Objects.requireNonNull(family, "family");
        references = references == null ? List.of() : List.copyOf(references);
        held = held == null ? List.of() : List.copyOf(held);
    }

    /** An outcome that does not say which of its rule's conditions held. */
    public RuleOutcome(RuleFamily family, String rule, int tier, boolean matched, int failedMatchItem, String reason,
                       JsonArray applied, String error, List<String> references) {
        this(family, rule, tier, matched, failedMatchItem, reason, applied, error, references, List.of());
    }

    /** An outcome of a rule of {@code family} without references. */
    public RuleOutcome(RuleFamily family, String rule, int tier, boolean matched, int failedMatchItem, String reason,
                       JsonArray applied, String error) {
        this(family, rule, tier, matched, failedMatchItem, reason, applied, error, List.of());
    }

    /** A ModRule's outcome. */
    RuleOutcome(String rule, int tier, boolean matched, int failedMatchItem, String reason, JsonArray applied,
                String error, List<String> references) {
        this(RuleFamily.MODRULE, rule, tier, matched, failedMatchItem, reason, applied, error, references);
    }

    /** A ModRule's outcome without references. */
    RuleOutcome(String rule, int tier, boolean matched, int failedMatchItem, String reason, JsonArray applied,
                String error) {
        this(RuleFamily.MODRULE, rule, tier, matched, failedMatchItem, reason, applied, error, List.of());
    }
}

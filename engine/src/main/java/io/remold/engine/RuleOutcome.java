package io.remold.engine;

import jakarta.json.JsonArray;

/**
 * What one rule did for a request. Rules that matched are always reported; rules that did not match only when
 * the request asked for an explanation. {@code failedMatchItem} is the index of the first match item that did
 * not hold (-1 if none), with {@code reason}; {@code applied} holds the operations the rule performed (empty
 * when it failed), {@code error} why it failed or null, {@code references} how each of the rule's references was
 * resolved (when it got that far), then, when the request asks for an explanation, what each of its calls to an
 * external data provider answered (lines starting {@code external }).
 */
public record RuleOutcome(String rule, int tier, boolean matched, int failedMatchItem, String reason,
                          JsonArray applied, String error, java.util.List<String> references) {
    public RuleOutcome {
        references = references == null ? java.util.List.of() : java.util.List.copyOf(references);
    }

    /** An outcome of a rule without references. */
    public RuleOutcome(String rule, int tier, boolean matched, int failedMatchItem, String reason, JsonArray applied,
                       String error) {
        this(rule, tier, matched, failedMatchItem, reason, applied, error, java.util.List.of());
    }
}

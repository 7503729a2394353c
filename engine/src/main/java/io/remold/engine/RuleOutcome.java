package io.remold.engine;

import jakarta.json.JsonArray;

/**
 * What one rule did for a request. Rules that matched are always reported; rules that did not match only when
 * the request asked for an explanation. {@code failedMatchItem} is the index of the first match item that did
 * not hold (-1 if none), with {@code reason}; {@code applied} holds the operations the rule performed (empty
 * when it failed), {@code error} why it failed or null.
 */
public record RuleOutcome(String rule, int tier, boolean matched, int failedMatchItem, String reason,
                          JsonArray applied, String error) {
}

package io.remold.api;

/** One entry of {@code status.conditions} (the server reports {@code Ready} there). */
public record ModRuleCondition(String type, String status, String reason, String message,
                               String lastTransitionTime, long observedGeneration) {
}

package io.remold.engine;

import jakarta.json.JsonArray;
import jakarta.json.JsonValue;

import java.util.List;

/**
 * The engine's answer: the resulting object, the RFC 6902 patch from the request's object to it (empty when
 * nothing changed), the rejections (empty when allowed) and the per-rule outcomes.
 */
public record Decision(JsonValue result, JsonArray patch, List<Rejection> rejections, List<RuleOutcome> outcomes) {
    public Decision {
        rejections = List.copyOf(rejections);
        outcomes = List.copyOf(outcomes);
    }

    public boolean allowed() {
        return rejections.isEmpty();
    }

    /** KubeMod's webhook message for a rejected request. */
    public String rejectionMessage() {
        var sb = new StringBuilder("operation rejected by the following ModRule(s): ");
        for (int i = 0; i < rejections.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(rejections.get(i));
        }
        return sb.toString();
    }
}

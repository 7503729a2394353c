package io.remold.kinitiras.cue;

import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

/**
 * The {@code extraParams} a {@code renderedCue} sees: what its template's {@code valueRef} (and a validate
 * condition's {@code dataRef}) referenced, keyed as kinitiras's {@code utils/cue/params.go} keys them
 * ({@code otherObject}, {@code http}, {@code otherObject_d}, {@code http_d}).
 */
@FunctionalInterface
public interface ExtraParameters {
    ExtraParameters NONE = input -> JsonValue.EMPTY_JSON_OBJECT;

    JsonObject of(PolicyInput input) throws PolicyEvaluationException;
}

package io.remold.kinitiras;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

/**
 * Who answers a policy's {@code http} references (and CUE's {@code processing.http} tasks), given by the family's
 * owner: the server refuses them all until an administrator can allow URL prefixes; {@code eval} answers from files.
 * Implementations are thread-safe and bounded: they run on the request path.
 */
@FunctionalInterface
public interface HttpAnswers {
    /** Why {@link #REFUSED} refuses. */
    String REFUSAL = "http valueRef needs --allow-http-ref (not available yet)";

    /** Refuses every reference: no policy's URL is reached. */
    HttpAnswers REFUSED = reference -> {
        throw new PolicyEvaluationException(REFUSAL);
    };

    /** The response body of the reference ({@code HttpDataRef} as written), parsed as JSON. */
    JsonValue answer(JsonObject reference) throws PolicyEvaluationException;
}

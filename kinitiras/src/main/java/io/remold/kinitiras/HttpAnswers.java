package io.remold.kinitiras;

import io.remold.api.AllowedUrls;
import jakarta.json.JsonValue;

/**
 * Who answers a policy's {@code http} references (and CUE's {@code processing.http} tasks), given by the family's
 * owner: the server calls the URLs under the prefixes an administrator allows; {@code eval} answers from files.
 * Implementations are thread-safe and bounded: they run on the request path.
 */
public interface HttpAnswers {
    /** Refuses every reference: no policy's URL is reached. */
    HttpAnswers REFUSED = new HttpAnswers() {
        @Override
        public AllowedUrls allowed() {
            return AllowedUrls.NONE;
        }

        @Override
        public JsonValue answer(HttpCall call, long deadlineNanos) throws PolicyEvaluationException {
            throw new PolicyEvaluationException(AllowedUrls.NONE_ALLOWED);
        }
    };

    /** The URLs a reference may reach: a policy whose reference can reach none is not in force. */
    AllowedUrls allowed();

    /**
     * The response body of {@code call}, whose URL {@link #allowed()} allows, parsed as JSON; by
     * {@code deadlineNanos} ({@link System#nanoTime}), the request's budget.
     */
    JsonValue answer(HttpCall call, long deadlineNanos) throws PolicyEvaluationException;
}

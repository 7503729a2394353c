package io.remold.kinitiras;

import java.util.Optional;

/** One compiled validate form of a ClusterValidatePolicy rule ({@code cue}, {@code template}, ...). */
public interface Validator {
    /** Why the request is refused (kinitiras's reason text), or empty when this form lets it pass. */
    Optional<String> refusal(PolicyInput input) throws PolicyEvaluationException;
}

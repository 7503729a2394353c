package io.remold.kinitiras;

/** A policy could not be evaluated for a request (its message says which form and why); the policy fails alone. */
public class PolicyEvaluationException extends Exception {
    public PolicyEvaluationException(String message) {
        super(message);
    }

    public PolicyEvaluationException(String message, Throwable cause) {
        super(message, cause);
    }
}

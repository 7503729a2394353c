package io.remold.engine;

/** A reference the resolver refuses to look up; the rule fails (a Reject rule rejects), whatever its onMissing. */
public final class ReferenceException extends RuntimeException {
    public ReferenceException(String message) {
        super(message);
    }
}

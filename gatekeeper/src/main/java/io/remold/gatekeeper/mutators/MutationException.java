package io.remold.gatekeeper.mutators;

/** A mutator could not match or mutate this object; the reason is Gatekeeper's wording where it has one. */
public final class MutationException extends Exception {
    public MutationException(String message) {
        super(message);
    }

    public MutationException(String message, Throwable cause) {
        super(message, cause);
    }
}

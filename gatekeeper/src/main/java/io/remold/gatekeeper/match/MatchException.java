package io.remold.gatekeeper.match;

/** The match criteria could not be evaluated for this object (Gatekeeper: {@code failed to run Match criteria}). */
public final class MatchException extends Exception {
    public MatchException(String message) {
        super(message);
    }
}

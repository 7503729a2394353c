package io.remold.server.eval;

/** A usage or input problem: {@code eval} (and {@code convert}) print the message and exit with 2. */
public final class EvalException extends RuntimeException {
    public EvalException(String message) {
        super(message, null, false, false);
    }
}

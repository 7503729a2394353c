package io.remold.cli;

/**
 * A usage or input problem: the command ({@code eval}, {@code convert}, the server's {@code serve}) prints the
 * message and exits with 2.
 */
public final class UsageException extends RuntimeException {
    public UsageException(String message) {
        super(message, null, false, false);
    }
}

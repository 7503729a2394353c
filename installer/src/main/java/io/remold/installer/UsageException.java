package io.remold.installer;

/** An invalid command line or an unreadable file named on it; the message names the option and the value. */
final class UsageException extends Exception {
    UsageException(String message) {
        super(message);
    }
}

package io.remold.server.external;

import io.remold.api.Provider;

import java.time.Duration;

/**
 * A circuit breaker over the calls to one service: after {@link #FAILURES_TO_OPEN} failed calls in a row it is open
 * and refuses calls for {@code openNanos}; then one call (the probe) goes, and its answer closes it or keeps it open
 * for as long again. Not thread-safe: its owner guards it with its own lock. Times are the owner's clock.
 */
final class Breaker {
    /**
     * Failed calls in a row that open the breaker; any answered call resets the count. Not one: a caller (any tenant
     * the service serves) can make a single call fail on purpose, with a key or URL that makes the service slow, fail
     * or answer too much, and one such call must not refuse every other caller for seconds. Five in a row means the
     * service itself is failing, not one caller's calls.
     */
    static final int FAILURES_TO_OPEN = 5;
    private final long openNanos;
    /** What the refusal says, naming the service: never a call's own failure, which may echo another caller's keys. */
    private final String failing;
    private int failuresInARow;
    private boolean open;
    private long retryAt;
    private boolean probing;

    /** Open for {@code openNanos} at a time; {@code what} the service is, in the refusal ("provider"). */
    Breaker(long openNanos, String what) {
        this.openNanos = openNanos;
        this.failing = what + " failing: " + FAILURES_TO_OPEN + " calls in a row failed";
    }

    boolean isOpen() {
        return open;
    }

    /**
     * Null when a call may go (closed, or this is the probe of an open breaker: it is taken now); else why calls fail
     * at once, in words of its own (see {@link #FAILURES_TO_OPEN}).
     */
    String refusal(long now) {
        if (!open) {
            return null;
        }
        if (!probing && now - retryAt >= 0) {
            probing = true;
            return null;
        }
        String when = probing ? "when the call under way answers"
                : "after " + Provider.format(Duration.ofSeconds((retryAt - now + 999_999_999L) / 1_000_000_000L));
        return failing + "; retried " + when;
    }

    /** A call ended ({@code probe}: the breaker's): a failure counts towards opening, an answer closes it. */
    void ended(boolean failed, boolean probe, long now) {
        if (failed) {
            if (++failuresInARow >= FAILURES_TO_OPEN) { // a failed probe keeps it open, for as long again
                open = true;
                retryAt = now + openNanos;
            }
        } else {
            failuresInARow = 0;
            open = false;
        }
        if (probe) {
            probing = false;
        }
    }

    /** A probe that was never sent: the next call is. */
    void probeDropped() {
        probing = false;
    }
}

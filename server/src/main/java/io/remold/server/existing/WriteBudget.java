package io.remold.server.existing;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Spaces writes to at most {@code perSecond}: each takes the next free slot, waiting for it, unless that slot is
 * more than {@code maxWait} away (the caller then skips the write; the next scan asks again). The clock and the
 * wait are given, so tests step time without sleeping.
 */
final class WriteBudget {
    /** Waits the given nanoseconds. */
    @FunctionalInterface
    interface Pause {
        void nanos(long nanos) throws InterruptedException;
    }

    private final long interval;
    private final long maxWait;
    private final LongSupplier clock;
    private final Pause pause;
    /** The clock's time of the next free slot; guarded by this. */
    private long next;
    private boolean started;

    /** @param perSecond at least 1 */
    WriteBudget(int perSecond, Duration maxWait, LongSupplier clock, Pause pause) {
        this.interval = Duration.ofSeconds(1).toNanos() / perSecond;
        this.maxWait = maxWait.toNanos();
        this.clock = clock;
        this.pause = pause;
    }

    WriteBudget(int perSecond, Duration maxWait) {
        this(perSecond, maxWait, System::nanoTime, nanos -> Thread.sleep(Duration.ofNanos(nanos)));
    }

    /** Waits for this write's slot; false (at once) when it is beyond the bound, or the wait is interrupted. */
    boolean acquire() {
        long wait;
        synchronized (this) {
            long now = clock.getAsLong();
            long slot = started && next - now > 0 ? next : now;
            wait = slot - now;
            if (wait > maxWait) {
                return false;
            }
            started = true;
            next = slot + interval;
        }
        if (wait > 0) {
            try {
                pause.nanos(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}

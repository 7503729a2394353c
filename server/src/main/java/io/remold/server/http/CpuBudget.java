package io.remold.server.http;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;

/**
 * The CPU time the shadow worker's Shadow evaluations may take: a token bucket of CPU nanoseconds that refills at
 * {@code share} of one core (share × the wall time elapsed), holding at most share × {@value #WINDOW_NANOS} ns, so
 * that the worker's use averages at most {@code share} of a core over about a second. An evaluation runs while the
 * bucket is not in debt and is charged afterwards the CPU time it took (its thread's, and its script calls' on the
 * script threads, for which its thread waits); one evaluation may overdraw the bucket, and the next waits until the
 * refill has paid that back. Thread priority cannot do this: on Linux an unprivileged process's thread priorities
 * are ignored, so the worker's CPU competes with admission's.
 *
 * <p>Charged by one thread (the worker's); {@link #spent()} is asked from any (the request threads, to skip a
 * request before queueing it) and reads one volatile field.
 */
final class CpuBudget {
    /** The window the share is averaged over: the bucket holds share × this. */
    static final long WINDOW_NANOS = 1_000_000_000L;

    /** The clocks the budget reads, in nanoseconds (a test's are its own, so that it is deterministic). */
    interface Clocks {
        /** CPU time of the calling thread so far; its wall time where the JVM cannot measure CPU time. */
        long threadCpuNanos();

        /** A monotonic wall clock ({@link System#nanoTime()}). */
        long wallNanos();

        /** The JVM's: the current thread's CPU time from its {@link ThreadMXBean}, if supported and enabled. */
        static Clocks system() {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            boolean cpu = threads.isCurrentThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled();
            return new Clocks() {
                @Override
                public long threadCpuNanos() {
                    return cpu ? threads.getCurrentThreadCpuTime() : System.nanoTime();
                }

                @Override
                public long wallNanos() {
                    return System.nanoTime();
                }
            };
        }
    }

    private final double share;
    private final double capacity;
    private final Clocks clocks;
    /** CPU nanoseconds left as of {@link #refilledAt}; negative: a debt (the charging thread's alone). */
    private double tokens;
    private long refilledAt;
    /** Until when (wall) the bucket is in debt. */
    private volatile long inDebtUntil;

    /** @param share fraction of one core, above 0 and at most 1 (the {@code shadow-cpu-share} option, checked there) */
    CpuBudget(double share, Clocks clocks) {
        this.share = share;
        this.capacity = share * WINDOW_NANOS;
        this.clocks = clocks;
        this.tokens = capacity;
        this.refilledAt = clocks.wallNanos();
        this.inDebtUntil = refilledAt;
    }

    /** Whether the budget is spent now: an evaluation asked for now is skipped. */
    boolean spent() {
        return clocks.wallNanos() - inDebtUntil < 0;
    }

    /**
     * Runs {@code evaluation} on the calling thread and charges the CPU time it took, even when it fails: the calling
     * thread's, and what {@code elsewhereCpuNanos} (a running total) counted meanwhile of other threads working for
     * it.
     */
    void run(Runnable evaluation, LongSupplier elsewhereCpuNanos) {
        long cpuBefore = clocks.threadCpuNanos();
        long elsewhereBefore = elsewhereCpuNanos.getAsLong();
        try {
            evaluation.run();
        } finally {
            charge(clocks.threadCpuNanos() - cpuBefore + elsewhereCpuNanos.getAsLong() - elsewhereBefore);
        }
    }

    private void charge(long cpuNanos) {
        long now = clocks.wallNanos();
        tokens = Math.min(capacity, tokens + share * (now - refilledAt)) - cpuNanos;
        refilledAt = now;
        inDebtUntil = tokens >= 0 ? now : now + (long) Math.ceil(-tokens / share);
    }
}

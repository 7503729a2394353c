package io.remold.scripting;

import java.time.Duration;

/**
 * The sandbox's bounds. {@code callDeadline}: one function call, from its submission (queueing included);
 * {@code requestBudget}: all the script calls of one admission request together, well inside the webhook timeout
 * (5 s in the installer's bundle); {@code statements}: JavaScript statements one call may run; {@code allocatedBytes}: bytes one
 * call may allocate (sampled on the thread that runs it); {@code threads}: calls running at once, the rest wait
 * within their deadline.
 */
public record ScriptLimits(Duration callDeadline, Duration requestBudget, long statements, long allocatedBytes,
                           int threads) {
    /**
     * 1 s per call and 3 s per request, 10 million statements and 24 MiB per call, 2 threads. The memory is sized
     * for the bundle's 128 MiB heap: 2 calls of 24 MiB plus 16 MiB that idle sandboxes may hold is half of it.
     */
    public static ScriptLimits defaults() {
        return new ScriptLimits(Duration.ofSeconds(1), Duration.ofSeconds(3), 10_000_000L, 24L << 20, 2);
    }

    public ScriptLimits {
        if (callDeadline.isNegative() || callDeadline.isZero() || requestBudget.isNegative() || statements < 1
                || allocatedBytes < 1 || threads < 1) {
            throw new IllegalArgumentException("script limits must be positive");
        }
    }
}

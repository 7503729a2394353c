package io.remold.engine;

/**
 * Told, after each rule family's stage that ran on a request, when it started and ended ({@link System#nanoTime()}):
 * the server's traces make a child span of each. {@link #NONE} is checked for by identity, so a request without an
 * observer reads no clock.
 */
@FunctionalInterface
public interface StageObserver {
    StageObserver NONE = (family, startNanos, endNanos) -> { };

    void ran(RuleFamily family, long startNanos, long endNanos);

    /** The time now, or 0 for {@link #NONE}: what a stage's start is taken as. */
    default long now() {
        return this == NONE ? 0 : System.nanoTime();
    }

    /** Reports a stage that started at {@code startNanos} (from {@link #now()}) and ends now. */
    default void ended(RuleFamily family, long startNanos) {
        if (this != NONE) {
            ran(family, startNanos, System.nanoTime());
        }
    }
}

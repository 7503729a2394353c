package io.remold.server;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waits for something the server does in the background (a reload, a drain, an informer's event) by polling the
 * condition itself. The bound is no timing: it only keeps a broken build from hanging, so it is generous.
 */
public final class Eventually {
    static final Duration BOUND = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(20);

    private Eventually() {
    }

    /** Returns once {@code condition} holds; fails after {@link #BOUND}. */
    public static void await(BooleanSupplier condition) {
        await("the condition", condition);
    }

    /** Returns once {@code condition} holds; fails after {@link #BOUND}, naming {@code what} it waited for. */
    public static void await(String what, BooleanSupplier condition) {
        await(condition::getAsBoolean, done -> done, what);
    }

    /** Calls {@code call} until {@code done} accepts its result, and returns that; fails with the last result. */
    public static <T> T await(Supplier<T> call, Predicate<? super T> done) {
        return await(call, done, "a result accepted");
    }

    private static <T> T await(Supplier<T> call, Predicate<? super T> done, String what) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        T last = call.get();
        while (!done.test(last)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not reached within " + BOUND.toSeconds() + " s: " + what
                        + (last instanceof Boolean ? "" : "; the last result: " + last));
            }
            try {
                Thread.sleep(POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
            last = call.get();
        }
        return last;
    }
}

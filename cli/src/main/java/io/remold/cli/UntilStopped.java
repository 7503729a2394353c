package io.remold.cli;

import java.util.concurrent.CountDownLatch;

/** Holds a command that serves (the server's serve, playground) until the process is stopped (SIGTERM, Ctrl-C). */
public final class UntilStopped {
    private UntilStopped() {
    }

    /** Returns once the process is shutting down and {@code stop} has run, on a hook thread named {@code thread}. */
    public static void await(Runnable stop, String thread) {
        var stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.run();
            stopped.countDown();
        }, thread));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

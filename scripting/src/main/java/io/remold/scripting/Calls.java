package io.remold.scripting;

import java.lang.management.ManagementFactory;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs script calls on a few platform threads of their own, under a watchdog. The caller (a request's virtual
 * thread, an informer's thread) waits at most until the call's deadline; the watchdog cancels the call's context at
 * the deadline, or as soon as the thread running it has allocated more than the bound since the call began
 * (sampled every {@value #TICK_MILLIS} ms through {@link com.sun.management.ThreadMXBean}: GraalJS community
 * edition has no heap limit per context). The watchdog ticks only while calls run: an idle host costs no CPU. Calls never run on the caller's thread, so a request without scripts
 * never waits for one, and at most {@code threads} calls run at once.
 */
final class Calls implements AutoCloseable {
    static final long TICK_MILLIS = 5;
    /** How long a cancelled call may take to unwind before its caller stops waiting for it. */
    private static final long UNWIND_MILLIS = 200;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Why a call did not complete: the message names the bound it reached. */
    static final class Failed extends Exception {
        Failed(String message) {
            super(message, null, false, false);
        }
    }

    /** What a call runs, told which sandbox to watch once it has one. */
    interface Body<T> {
        T run(Running call) throws Exception;
    }

    /** A call in progress: the watchdog cancels its sandbox when it passes a bound. */
    static final class Running {
        private final long deadlineNanos;
        private volatile Sandbox sandbox;
        private volatile Thread thread;
        private volatile long startBytes;
        private volatile String exceeded;

        private Running(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }

        /** The sandbox the call uses from now on (before any script code runs in it). */
        void watch(Sandbox sandbox) {
            this.sandbox = sandbox;
            if (exceeded != null) {
                sandbox.cancel();
            }
        }

        private void cancel() {
            Sandbox s = sandbox;
            if (s != null) {
                s.cancel();
            }
        }
    }

    private final ScriptLimits limits;
    private final ThreadPoolExecutor pool;
    private final ScheduledThreadPoolExecutor watchdog;
    /** The calls running: changed under {@code this}, with {@link #ticking}; read by the watchdog without it. */
    private final Set<Running> running = ConcurrentHashMap.newKeySet();
    /** The watchdog's ticks while some call runs, else null. */
    private ScheduledFuture<?> ticking;

    Calls(ScriptLimits limits) {
        this.limits = limits;
        this.pool = new ThreadPoolExecutor(limits.threads(), limits.threads(), 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(1024), Thread.ofPlatform().daemon().name("remold-script-", 0).factory());
        this.watchdog = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("remold-script-watchdog").factory());
        watchdog.setRemoveOnCancelPolicy(true); // ticks start and stop with every burst of calls
    }

    /**
     * Runs {@code body} by {@code deadlineNanos} ({@link System#nanoTime()}); its result, or {@link Failed} naming
     * the bound passed; a JavaScript error comes out as the body's exception. The watched sandbox is unusable after
     * a Failed.
     */
    <T> T run(long deadlineNanos, Body<T> body) throws Failed, ExecutionException {
        var call = new Running(deadlineNanos);
        Future<T> future;
        try {
            future = pool.submit(() -> {
                call.thread = Thread.currentThread();
                call.startBytes = THREADS.getCurrentThreadAllocatedBytes();
                started(call);
                try {
                    if (System.nanoTime() - call.deadlineNanos >= 0) {
                        throw new Failed("waited past its deadline for a script thread");
                    }
                    return body.run(call);
                } finally {
                    finished(call);
                }
            });
        } catch (RejectedExecutionException e) {
            throw new Failed(pool.isShutdown() ? "the script host is closed" : "too many script calls waiting");
        }
        try {
            long wait = deadlineNanos - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(UNWIND_MILLIS);
            return future.get(Math.max(0, wait), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(false);
            call.cancel();
            throw new Failed(exceeded(call, "did not finish by its deadline"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(false);
            call.cancel();
            throw new Failed("interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Failed failed) {
                throw failed;
            }
            if (call.exceeded != null) {
                throw new Failed(call.exceeded);
            }
            throw e;
        }
    }

    /** Watches {@code call}, starting the ticks if it is the only one. */
    private synchronized void started(Running call) throws Failed {
        running.add(call);
        if (ticking == null) {
            try {
                ticking = watchdog.scheduleWithFixedDelay(this::check, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                running.remove(call);
                throw new Failed("the script host is closed");
            }
        }
    }

    /** Stops watching {@code call}, and stops the ticks if it was the last one. */
    private synchronized void finished(Running call) {
        if (running.remove(call) && running.isEmpty() && ticking != null) {
            ticking.cancel(false);
            ticking = null;
        }
    }

    /** Whether the watchdog is idle: no call runs and no tick is scheduled (for tests). */
    synchronized boolean idle() {
        return running.isEmpty() && ticking == null && watchdog.getQueue().isEmpty();
    }

    private static String exceeded(Running call, String otherwise) {
        return call.exceeded != null ? call.exceeded : otherwise;
    }

    private void check() {
        long now = System.nanoTime();
        for (Running call : running) {
            Thread thread = call.thread;
            if (thread == null || call.exceeded != null) {
                continue;
            }
            if (now - call.deadlineNanos >= 0) {
                call.exceeded = "exceeded its time limit of " + limits.callDeadline().toMillis() + " ms"
                        + " (or the request's script budget of " + limits.requestBudget().toMillis() + " ms)";
            } else if (THREADS.getThreadAllocatedBytes(thread.threadId()) - call.startBytes
                    > limits.allocatedBytes()) {
                call.exceeded = "allocated more than its memory bound of " + (limits.allocatedBytes() >> 20) + " MiB";
            } else {
                continue;
            }
            call.cancel();
        }
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
        pool.shutdownNow();
    }
}

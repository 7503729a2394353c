package io.remold.scripting;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;

/**
 * Runs script calls on a few platform threads of their own, under a watchdog. The caller (a request's virtual
 * thread, an informer's thread) waits at most until the call's deadline; the watchdog cancels the call's context at
 * the deadline, or as soon as the thread running it has allocated more than the bound since the call began
 * (sampled every {@value #TICK_MILLIS} ms through {@link com.sun.management.ThreadMXBean}: GraalJS community
 * edition has no heap limit per context). The watchdog ticks only while calls run, and one tick after (scheduling the
 * ticks per call cost a wake-up of the watchdog per call): an idle host costs no CPU. Calls
 * never run on the caller's thread, so a request without scripts never waits for one, and at most {@code threads}
 * calls run at once.
 *
 * <p>Neither the caller nor the watchdog ever waits for a cancellation: a builtin that runs long in one step (no
 * safepoint poll) holds {@code Context.close(true)} until it returns, so contexts are closed on a virtual thread of
 * their own. A call that has not unwound {@value #GRACE_MILLIS} ms after it was stopped is given up: its thread is
 * replaced in the pool, at most {@value #MAX_ABANDONED} at once (beyond, calls fail at once until one ends). The
 * calls of one namespace's rules hold at most {@link #tenantQuota()} threads, running or given up, so one tenant
 * cannot take them all; cluster-wide rules (the administrator's) have no quota.
 */
final class Calls implements AutoCloseable {
    static final long TICK_MILLIS = 5;
    /** How long a call the watchdog stopped may take to unwind before its caller stops waiting for it. */
    private static final long UNWIND_MILLIS = 100;
    /** How long a stopped call may keep its thread before the thread is given up and replaced. */
    static final long GRACE_MILLIS = 500;
    /** Threads given up at once, at most: each still runs its builtin to the end. */
    static final int MAX_ABANDONED = 4;
    /** Sandboxes kept idle across all rules, and the bytes they allocated in their lives (bounding what they hold). */
    static final int IDLE_SANDBOXES = 16;
    static final long IDLE_BYTES = 16L << 20;
    private static final Logger LOG = Logger.getLogger(Scripts.class.getName());
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    /** Whether a thread's CPU time can be read: otherwise the calls' CPU time is their threads' wall time. */
    private static final boolean THREAD_CPU = THREADS.isCurrentThreadCpuTimeSupported()
            && THREADS.isThreadCpuTimeEnabled();

    /**
     * Why a call did not complete: the message names the bound it reached. {@code overran}: the script itself ran
     * past its deadline or memory bound (not a wait for a thread).
     */
    static final class Failed extends Exception {
        private final boolean overran;

        Failed(String message) {
            this(message, false);
        }

        Failed(String message, boolean overran) {
            super(message, null, false, false);
            this.overran = overran;
        }

        boolean overran() {
            return overran;
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
        /** Why the call was stopped, set once; and when ({@link System#nanoTime()}). */
        private volatile String exceeded;
        private volatile long stoppedAt;
        private volatile boolean abandoned;

        private Running(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }

        /** The sandbox the call uses from now on (before any script code runs in it). */
        void watch(Sandbox sandbox) {
            this.sandbox = sandbox;
            if (exceeded != null) {
                sandbox.cancel(); // on the call's own thread, before it runs anything: returns at once
            }
        }

        /** Whether the call's deadline has passed. */
        boolean pastDeadline() {
            return System.nanoTime() - deadlineNanos >= 0;
        }

        /** Why the watchdog stopped the call, or null. */
        String exceeded() {
            return exceeded;
        }

        /** Stops the call for {@code why} (the first reason stays), closing its sandbox on a thread of its own. */
        private synchronized void stop(String why) {
            if (exceeded != null) {
                return;
            }
            exceeded = why;
            stoppedAt = System.nanoTime();
            Sandbox s = sandbox;
            if (s != null) {
                Thread.ofVirtual().name("remold-script-cancel").start(s::cancel);
            }
        }
    }

    private final ScriptLimits limits;
    private final ThreadPoolExecutor pool;
    private final ScheduledThreadPoolExecutor watchdog;
    /** CPU time the calls that ended took on their threads, in all. */
    private final LongAdder cpuNanos = new LongAdder();
    /** The calls running: changed under {@code this}, with {@link #ticking}; read by the watchdog without it. */
    private final Set<Running> running = ConcurrentHashMap.newKeySet();
    /** Threads each namespace's calls hold (queued, running or given up), by namespace. */
    private final Map<String, Semaphore> tenants = new ConcurrentHashMap<>();
    /** The watchdog's ticks while some call runs, else null. */
    private ScheduledFuture<?> ticking;
    /** Threads given up and not yet back (under {@code this}). */
    private int abandoned;
    /** Idle sandboxes of every rule and the bytes they allocated (under {@code this}). */
    private int idleSandboxes;
    private long idleBytes;

    Calls(ScriptLimits limits) {
        this.limits = limits;
        this.pool = new ThreadPoolExecutor(limits.threads(), limits.threads(), 0, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(1024), Thread.ofPlatform().daemon().name("remold-script-", 0).factory());
        this.watchdog = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("remold-script-watchdog").factory());
        watchdog.setRemoveOnCancelPolicy(true); // ticks start and stop with every burst of calls
    }

    /** Threads the calls of one namespace's rules may hold at once: half of them, at least one. */
    int tenantQuota() {
        return Math.max(1, limits.threads() / 2);
    }

    /**
     * Runs {@code body} by {@code deadlineNanos} ({@link System#nanoTime()}) for a rule of {@code namespace} (null:
     * a cluster-wide rule); its result, or {@link Failed} naming the bound passed; a JavaScript error comes out as
     * the body's exception. The watched sandbox is unusable after a Failed, and the body may still be running: it
     * must dispose of its sandbox itself.
     */
    <T> T run(String namespace, long deadlineNanos, Body<T> body) throws Failed, ExecutionException {
        synchronized (this) {
            if (abandoned >= MAX_ABANDONED) {
                throw new Failed(abandoned + " script threads are held by calls that could not be stopped; script"
                        + " calls fail until one of them ends");
            }
        }
        Semaphore quota = namespace == null ? null
                : tenants.computeIfAbsent(namespace, ns -> new Semaphore(tenantQuota()));
        if (quota != null) {
            try {
                if (!quota.tryAcquire(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    throw new Failed("namespace " + namespace + " has its " + tenantQuota() + " script call(s) in"
                            + " flight already (its quota of script threads)");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Failed("interrupted");
            }
        }
        var call = new Running(deadlineNanos);
        var result = new CompletableFuture<T>();
        try {
            pool.execute(() -> {
                try {
                    call.thread = Thread.currentThread();
                    call.startBytes = THREADS.getCurrentThreadAllocatedBytes();
                    long cpuStart = threadCpuNanos();
                    started(call);
                    T value;
                    try {
                        if (System.nanoTime() - call.deadlineNanos >= 0) {
                            throw new Failed("waited past its deadline for a script thread");
                        }
                        value = body.run(call);
                    } finally {
                        cpuNanos.add(threadCpuNanos() - cpuStart);
                        finished(call); // before the caller hears of the result: the watchdog is idle by then
                    }
                    result.complete(value);
                } catch (Throwable t) {
                    result.completeExceptionally(t);
                } finally {
                    if (quota != null) {
                        quota.release();
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            if (quota != null) {
                quota.release();
            }
            throw new Failed(pool.isShutdown() ? "the script host is closed" : "too many script calls waiting");
        }
        try {
            long wait = deadlineNanos - System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(UNWIND_MILLIS);
            return result.get(Math.max(0, wait), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // Only a call that ran overran: one still queued waited for the others (it is not the rule's doing).
            boolean ran = call.thread != null;
            call.stop(ran ? "did not finish by its deadline" : "waited past its deadline for a script thread");
            throw new Failed(call.exceeded, ran);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            call.stop("interrupted");
            throw new Failed("interrupted");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Failed failed) {
                throw failed;
            }
            if (call.exceeded != null) {
                throw new Failed(call.exceeded, true);
            }
            throw e;
        }
    }

    private static long threadCpuNanos() {
        return THREAD_CPU ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /**
     * CPU time the calls that ended took on their threads, in all: what a caller's calls cost besides its own thread
     * (a call given up is counted when it ends).
     */
    long cpuNanos() {
        return cpuNanos.sum();
    }

    /** Bytes the current thread has allocated in its life: what a call allocated is the difference of two. */
    static long allocatedByThisThread() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /**
     * Whether a sandbox that allocated {@code bytes} in its life may wait idle: within the host's bounds on idle
     * sandboxes ({@value #IDLE_SANDBOXES}, {@value #IDLE_BYTES} bytes allocated). Counted until {@link #leftIdle}.
     */
    synchronized boolean keepIdle(long bytes) {
        if (idleSandboxes >= IDLE_SANDBOXES || idleBytes + bytes > IDLE_BYTES) {
            return false;
        }
        idleSandboxes++;
        idleBytes += bytes;
        return true;
    }

    /** A sandbox {@link #keepIdle} counted is in use again, or closed. */
    synchronized void leftIdle(long bytes) {
        idleSandboxes--;
        idleBytes -= bytes;
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

    /** Stops watching {@code call}; a given-up thread is back. */
    private synchronized void finished(Running call) {
        if (call.abandoned) {
            abandoned--;
            pool.setCorePoolSize(limits.threads() + abandoned);
            pool.setMaximumPoolSize(limits.threads() + abandoned);
            LOG.info("a script thread given up " + (System.nanoTime() - call.stoppedAt) / 1_000_000
                    + " ms after its call was stopped has ended");
        }
        running.remove(call); // the ticks stop at the next one that finds no call: not scheduled again per call
    }

    /** Stops the ticks if no call runs: a tick's last act once the calls have ended. */
    private synchronized void stopTicksIfIdle() {
        if (running.isEmpty() && ticking != null) {
            ticking.cancel(false);
            ticking = null;
        }
    }

    /** Gives up the thread of a call that did not unwind: another takes its place in the pool. */
    private synchronized void abandon(Running call) {
        if (call.abandoned || !running.contains(call)) {
            return;
        }
        call.abandoned = true;
        abandoned++;
        pool.setMaximumPoolSize(limits.threads() + abandoned);
        pool.setCorePoolSize(limits.threads() + abandoned);
        LOG.warning("a script call stopped " + GRACE_MILLIS + " ms ago (" + call.exceeded + ") still holds its"
                + " thread, which is given up and replaced (" + abandoned + " given up now, at most "
                + MAX_ABANDONED + ")");
    }

    /** Whether the watchdog is idle: no call runs and no tick is scheduled (for tests). */
    synchronized boolean idle() {
        return running.isEmpty() && ticking == null && watchdog.getQueue().isEmpty();
    }

    /** Threads given up and still running (for tests). */
    synchronized int abandoned() {
        return abandoned;
    }

    private void check() {
        if (running.isEmpty()) {
            stopTicksIfIdle();
            return;
        }
        long now = System.nanoTime();
        for (Running call : running) {
            Thread thread = call.thread;
            if (thread == null) {
                continue;
            }
            if (call.exceeded != null) {
                if (!call.abandoned && now - call.stoppedAt > TimeUnit.MILLISECONDS.toNanos(GRACE_MILLIS)) {
                    abandon(call);
                }
            } else if (now - call.deadlineNanos >= 0) {
                call.stop("exceeded its time limit of " + limits.callDeadline().toMillis() + " ms"
                        + " (or what was left of the request's budget)");
            } else if (THREADS.getThreadAllocatedBytes(thread.threadId()) - call.startBytes
                    > limits.allocatedBytes()) {
                call.stop("allocated more than its memory bound of " + (limits.allocatedBytes() >> 20) + " MiB");
            }
        }
    }

    @Override
    public void close() {
        watchdog.shutdownNow();
        pool.shutdownNow();
    }
}

package io.remold.cue;

import jakarta.json.JsonObject;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A fixed number of worker slots, each running at most one process serving one call at a time, started when first
 * needed and again after it died; callers beyond the free slots wait their turn ({@link FairShare}: bounded, fair
 * between tenants, never past their own deadline). A process that dies during a call is the call's policy's doing
 * (the caller quarantines it) and is replaced at once; one that cannot start is retried after a growing back-off.
 */
final class WorkerPool implements AutoCloseable {
    private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final CueLimits limits;
    private final Path binary = WorkerBinary.extract();
    private final List<Slot> slots = new ArrayList<>();
    /** Gives the most recently used slot first: a warm worker, which has the policy parsed, before a cold one. */
    private final FairShare<Slot> share;
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
            Thread.ofPlatform().daemon().name("remold-cue-deadline").factory());
    private volatile boolean closed;

    WorkerPool(CueLimits limits) {
        this.limits = limits;
        for (int i = 0; i < limits.workers(); i++) {
            slots.add(new Slot());
        }
        this.share = new FairShare<>(slots, limits);
        timer.setRemoveOnCancelPolicy(true); // a deadline met leaves nothing queued
    }

    /**
     * A worker for calls of {@code policy} charged to {@code owner} when its turn comes, or a clear failure when it
     * may not wait or does not get one before the deadline; close the lease to give the worker back.
     */
    Lease acquire(CueEvaluator.Owner owner, long policy, long deadlineNanos) throws CueException {
        try {
            return new Lease(owner, policy, share.acquire(owner, policy, deadlineNanos));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CueException("interrupted while waiting for a CUE worker");
        }
    }

    /** The calls waiting for a worker now. */
    int waiting() {
        return share.waiting();
    }

    List<ProcessHandle> processes() {
        return slots.stream().map(slot -> slot.process).filter(p -> p != null && p.usable())
                .map(WorkerProcess::handle).toList();
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        for (Slot slot : slots) {
            slot.stop();
        }
    }

    /** One worker held by one caller, for one or more calls in a row, until closed. */
    final class Lease implements AutoCloseable {
        private final CueEvaluator.Owner owner;
        private final long policy;
        private final Slot slot;

        private Lease(CueEvaluator.Owner owner, long policy, Slot slot) {
            this.owner = owner;
            this.policy = policy;
            this.slot = slot;
        }

        /** One call on the held worker. */
        JsonObject call(JsonObject request, long deadlineNanos, CueEvaluator.HttpTasks http)
                throws CueException, WorkerProcess.Died {
            try {
                return slot.call(request, deadlineNanos, http);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CueException("interrupted while waiting to start the CUE worker again");
            }
        }

        @Override
        public void close() {
            share.release(owner, policy, slot);
        }
    }

    /** A place for one worker process; only the caller holding the slot touches it, but {@link #stop} may. */
    private final class Slot {
        private volatile WorkerProcess process;
        private int failedStarts;
        private long restartAt = System.nanoTime();

        JsonObject call(JsonObject request, long deadlineNanos, CueEvaluator.HttpTasks http)
                throws CueException, WorkerProcess.Died, InterruptedException {
            WorkerProcess worker = ready(deadlineNanos);
            try {
                JsonObject answer = worker.call(request, deadlineNanos, http, timer);
                failedStarts = 0;
                return answer;
            } catch (WorkerProcess.Died e) {
                if (e.atStart) {
                    failedStart();
                }
                throw e;
            }
        }

        private WorkerProcess ready(long deadlineNanos) throws CueException, InterruptedException {
            if (closed) {
                throw new CueException("the CUE evaluator is closed");
            }
            if (process != null && process.usable()) {
                return process;
            }
            long wait = restartAt - System.nanoTime();
            if (wait > 0) {
                if (restartAt - deadlineNanos > 0) {
                    throw new CueException("the CUE worker failed to start " + failedStarts
                            + " times in a row; the next try is after the deadline");
                }
                TimeUnit.NANOSECONDS.sleep(wait); // back-off after crashes; bounded by the caller's deadline
            }
            try {
                process = WorkerProcess.start(binary, limits);
                return process;
            } catch (IOException e) {
                failedStart();
                throw new CueException("cannot start the CUE worker: " + e.getMessage(), e);
            }
        }

        private void failedStart() {
            failedStarts++;
            restartAt = System.nanoTime()
                    + Math.min(MAX_BACKOFF_NANOS, FIRST_BACKOFF_NANOS << Math.min(failedStarts - 1, 16));
        }

        void stop() {
            WorkerProcess current = process;
            if (current != null) {
                current.stop();
            }
        }
    }
}

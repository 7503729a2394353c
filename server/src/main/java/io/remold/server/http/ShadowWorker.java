package io.remold.server.http;

import io.remold.rules.impact.ImpactSink;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Where the webhook hands what it does after answering: the Shadow rules' evaluation of a request and the verdicts of
 * its Warn rules, each given to the server's {@link ImpactSink}. One low-priority thread takes them in order from a
 * bounded queue; when the queue is full the request's work is dropped and counted, so a flood of requests, or a
 * tenant's slow Shadow rule, never delays or blocks admission. Each piece of work is bounded as admission is (the
 * request budget, the script limits).
 */
public final class ShadowWorker implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ShadowWorker.class.getName());

    private final ThreadPoolExecutor executor;
    private final ImpactSink sink;

    /** @param capacity requests that may wait (the {@code shadow-queue} option) */
    public ShadowWorker(int capacity, ImpactSink sink, Metrics metrics) {
        this.sink = sink;
        this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(capacity),
                Thread.ofPlatform().daemon().priority(Thread.MIN_PRIORITY).name("remold-shadow").factory(),
                (work, pool) -> metrics.shadowDropped());
    }

    /** Where the verdicts go. */
    ImpactSink sink() {
        return sink;
    }

    /** Queues {@code work} without waiting: when the queue is full (or the worker closed), it is dropped and counted. */
    void submit(Runnable work) {
        executor.execute(() -> {
            try {
                work.run();
            } catch (RuntimeException e) {
                // An evaluation or a sink that fails loses this request's verdicts, never the worker.
                LOG.log(Level.WARNING, "shadow evaluation failed", e);
            }
        });
    }

    /** Stops taking work; what is queued is dropped (it only records). */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}

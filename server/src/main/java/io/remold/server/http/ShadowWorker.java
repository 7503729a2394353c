package io.remold.server.http;

import io.remold.rules.impact.ImpactSink;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Where the webhook hands what it does after answering: the Shadow rules' evaluation of a request and the verdicts of
 * its Warn rules, each given to the server's {@link ImpactSink}. One low-priority thread takes them in order from a
 * bounded queue; when the queue is full the request's work is dropped and counted, so a flood of requests, or a
 * tenant's slow Shadow rule, never delays or blocks admission. The queue is bounded in requests and in the bytes of
 * their bodies (a request's work holds its parsed object until it runs). Each piece of work is bounded as admission
 * is (the request budget, the script limits).
 */
public final class ShadowWorker implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ShadowWorker.class.getName());

    private final ThreadPoolExecutor executor;
    private final ImpactSink sink;
    private final Metrics metrics;
    private final long maxQueuedBytes;
    /** The body bytes of the requests queued or running. */
    private final AtomicLong queuedBytes = new AtomicLong();

    /**
     * @param capacity       requests that may wait (the {@code shadow-queue} option)
     * @param maxQueuedBytes their bodies' bytes that may wait (the server's {@code max-body-bytes-in-flight})
     */
    public ShadowWorker(int capacity, long maxQueuedBytes, ImpactSink sink, Metrics metrics) {
        this.sink = sink;
        this.metrics = metrics;
        this.maxQueuedBytes = maxQueuedBytes;
        this.executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(capacity),
                Thread.ofPlatform().daemon().priority(Thread.MIN_PRIORITY).name("remold-shadow").factory(),
                new ThreadPoolExecutor.AbortPolicy());
    }

    /** Where the verdicts go. */
    ImpactSink sink() {
        return sink;
    }

    /**
     * Queues {@code work} about a request of {@code bodyBytes} without waiting: when the queue is full, in requests or
     * bytes (or the worker closed), it is dropped and counted.
     */
    void submit(int bodyBytes, Runnable work) {
        if (queuedBytes.addAndGet(bodyBytes) > maxQueuedBytes) {
            queuedBytes.addAndGet(-bodyBytes);
            metrics.shadowDropped();
            return;
        }
        try {
            executor.execute(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    // An evaluation or a sink that fails loses this request's verdicts, never the worker.
                    LOG.log(Level.WARNING, "shadow evaluation failed", e);
                } finally {
                    queuedBytes.addAndGet(-bodyBytes);
                }
            });
        } catch (RejectedExecutionException e) {
            queuedBytes.addAndGet(-bodyBytes);
            metrics.shadowDropped();
        }
    }

    /** Stops taking work; what is queued is dropped (it only records). */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}

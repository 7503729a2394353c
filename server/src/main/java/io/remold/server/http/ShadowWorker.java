package io.remold.server.http;

import io.remold.rules.impact.ImpactSink;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Where the webhook hands what it does after answering: the Shadow rules' evaluation of a request and the verdicts of
 * its Warn rules, each given to the server's {@link ImpactSink}. One low-priority thread takes them in order from a
 * bounded queue; when the queue is full the request's work is dropped and counted, so a flood of requests, or a
 * tenant's slow Shadow rule, never delays or blocks admission. The queue is bounded in requests and in the bytes of
 * their bodies (a request's work holds its parsed object until it runs). Each piece of work is bounded as admission
 * is (the request budget, the script limits).
 *
 * <p>The Shadow evaluations together are bounded in CPU time too ({@link CpuBudget}): the thread's priority does not
 * keep it from taking a core that admission needs. While the budget is spent, a request's Shadow evaluation is
 * skipped and counted, before it is queued when the budget is spent already, else when its turn comes. The Warn
 * verdicts are read from the enforcing engine's decision, which admission paid for: they are always recorded.
 */
public final class ShadowWorker implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ShadowWorker.class.getName());

    private final Executor executor;
    private final ImpactSink sink;
    private final Metrics metrics;
    private final long maxQueuedBytes;
    private final CpuBudget budget;
    /** The body bytes of the requests queued or running. */
    private final AtomicLong queuedBytes = new AtomicLong();

    /**
     * @param capacity       requests that may wait (the {@code shadow-queue} option)
     * @param maxQueuedBytes their bodies' bytes that may wait (the server's {@code max-body-bytes-in-flight})
     * @param cpuShare       fraction of one core the Shadow evaluations may take (the {@code shadow-cpu-share} option)
     */
    public ShadowWorker(int capacity, long maxQueuedBytes, double cpuShare, ImpactSink sink, Metrics metrics) {
        this(new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(capacity),
                        Thread.ofPlatform().daemon().priority(Thread.MIN_PRIORITY).name("remold-shadow").factory(),
                        new ThreadPoolExecutor.AbortPolicy()),
                maxQueuedBytes, new CpuBudget(cpuShare, CpuBudget.Clocks.system()), sink, metrics);
    }

    /** @param executor runs the work in order; it may refuse it ({@link RejectedExecutionException}: full) */
    ShadowWorker(Executor executor, long maxQueuedBytes, CpuBudget budget, ImpactSink sink, Metrics metrics) {
        this.executor = executor;
        this.maxQueuedBytes = maxQueuedBytes;
        this.budget = budget;
        this.sink = sink;
        this.metrics = metrics;
    }

    /**
     * A request's Shadow evaluation, run on the worker's thread; {@code scriptCpuNanos} is the running total of the
     * CPU time the Shadow rules' script calls took on their host's threads (always 0 without Shadow script rules), so
     * that the budget charges them too.
     */
    record Evaluation(Runnable run, LongSupplier scriptCpuNanos) {
    }

    /** Where the verdicts go. */
    ImpactSink sink() {
        return sink;
    }

    /**
     * Queues the work about a request of {@code bodyBytes} without waiting: {@code warned} records its Warn rules'
     * verdicts, {@code evaluation} evaluates its Shadow rules (each null when there is none). The evaluation is
     * skipped while the CPU budget is spent; when the queue is full, in requests or bytes (or the worker closed), the
     * request's work is dropped. Either is counted.
     */
    void submit(int bodyBytes, Runnable warned, Evaluation evaluation) {
        Evaluation shadow = evaluation;
        if (shadow != null && budget.spent()) {
            metrics.shadowDropped(Metrics.ShadowDrop.cpu);
            shadow = null;
        }
        if (warned == null && shadow == null) {
            return;
        }
        if (queuedBytes.addAndGet(bodyBytes) > maxQueuedBytes) {
            queuedBytes.addAndGet(-bodyBytes);
            metrics.shadowDropped(Metrics.ShadowDrop.queue);
            return;
        }
        Evaluation budgeted = shadow;
        try {
            executor.execute(() -> {
                try {
                    if (warned != null) {
                        warned.run();
                    }
                    if (budgeted != null) {
                        evaluate(budgeted);
                    }
                } catch (RuntimeException e) {
                    // An evaluation or a sink that fails loses this request's verdicts, never the worker.
                    LOG.log(Level.WARNING, "shadow evaluation failed", e);
                } finally {
                    queuedBytes.addAndGet(-bodyBytes);
                }
            });
        } catch (RejectedExecutionException e) {
            queuedBytes.addAndGet(-bodyBytes);
            metrics.shadowDropped(Metrics.ShadowDrop.queue);
        }
    }

    /** Runs a Shadow evaluation on the worker's thread unless the requests before it spent the budget meanwhile. */
    private void evaluate(Evaluation evaluation) {
        if (budget.spent()) {
            metrics.shadowDropped(Metrics.ShadowDrop.cpu);
        } else {
            budget.run(evaluation.run(), evaluation.scriptCpuNanos());
        }
    }

    /** Stops taking work; what is queued is dropped (it only records). */
    @Override
    public void close() {
        if (executor instanceof ExecutorService service) {
            service.shutdownNow();
        }
    }
}

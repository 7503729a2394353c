package io.remold.server.kube;

import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.RateLimitingQueue;
import io.kubernetes.client.extended.workqueue.ratelimiter.ItemExponentialFailureRateLimiter;
import io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * The leader's writes to the API server (rule status, the validating webhook's reach), by key, on one worker thread
 * (client-go's rate-limited work queue): a write asked for a key that has one waiting replaces it (the latest
 * desired state wins), and a write that fails is tried again after a back-off that grows per key while this
 * replica leads (a replica that loses the lead keeps its failed writes until {@link #resume()}: another replica
 * may lead for a while only).
 */
final class WriteQueue implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(WriteQueue.class.getName());
    /** Per key: 1 s after the first failure, doubling up to 5 minutes. */
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration MAX_RETRY = Duration.ofMinutes(5);

    /** What an attempt came to. */
    enum Result { DONE, RETRY }

    /** One write; {@code retries} is how many attempts of its key have failed in a row (for quieter logs). */
    @FunctionalInterface
    interface Write {
        Result attempt(int retries);
    }

    private final RateLimitingQueue<Object> queue;
    private final BooleanSupplier leader;
    private final Map<Object, Write> latest = new ConcurrentHashMap<>();
    /** The queue's delay loop and the worker. */
    private final ExecutorService threads =
            Executors.newFixedThreadPool(2, Thread.ofPlatform().daemon().name("remold-writes-", 0).factory());

    /** Retries with {@code backoff} while {@code leader} holds. */
    WriteQueue(RateLimiter<Object> backoff, BooleanSupplier leader) {
        this.leader = leader;
        this.queue = new DefaultRateLimitingQueue<>(threads, backoff);
        threads.execute(this::work);
    }

    WriteQueue(BooleanSupplier leader) {
        this(new ItemExponentialFailureRateLimiter<>(FIRST_RETRY, MAX_RETRY), leader);
    }

    /** Queues {@code write} under {@code key} (equal keys are one write), replacing one of the key not begun yet. */
    synchronized void submit(Object key, Write write) {
        latest.put(key, write);
        queue.add(key);
    }

    private void work() {
        while (!queue.isShuttingDown()) {
            Object key;
            try {
                key = queue.get();
            } catch (InterruptedException e) {
                return;
            }
            if (key == null) {
                return;
            }
            drain(key);
        }
    }

    /**
     * Runs the writes of {@code key} until none waits. One asked while the previous one ran goes at once, ahead of
     * the keys asked after it (the work queue alone would put it behind them): writes asked one after the other keep
     * their order, so the webhook's reach is written before the status that says a Reject rule is Ready.
     */
    private void drain(Object key) {
        while (true) {
            Write write;
            synchronized (this) {
                write = latest.remove(key);
                if (write == null) {
                    queue.done(key);
                    return;
                }
            }
            if (attempt(key, write) == Result.RETRY) {
                latest.putIfAbsent(key, write); // unless a newer one came meanwhile
                if (leader.getAsBoolean()) {
                    queue.addRateLimited(key);
                } // else it waits for resume()
                queue.done(key);
                return;
            }
            queue.forget(key);
        }
    }

    private Result attempt(Object key, Write write) {
        try {
            return write.attempt(queue.numRequeues(key));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "write of {0} failed: {1}", key, e.toString());
            return Result.RETRY;
        }
    }

    /** On becoming leader (again): tries at once every write whose retry waits, those parked by a lost lead too. */
    void resume() {
        latest.keySet().forEach(queue::add);
    }

    /** Drops what waits; a write in progress ends on its own. */
    @Override
    public void close() {
        queue.shutDown();
        threads.shutdownNow();
    }
}

package io.remold.server.kube;

import io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.remold.server.Eventually.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

class WriteQueueTest {
    /** Back-off without waiting: records what the queue asks of it. */
    private static final class RecordingBackoff implements RateLimiter<Object> {
        final List<Object> delayed = new CopyOnWriteArrayList<>();
        final List<Object> forgotten = new CopyOnWriteArrayList<>();
        private final Map<Object, Integer> failures = new ConcurrentHashMap<>();

        @Override
        public Duration when(Object key) {
            delayed.add(key);
            failures.merge(key, 1, Integer::sum);
            return Duration.ZERO;
        }

        @Override
        public void forget(Object key) {
            forgotten.add(key);
            failures.remove(key);
        }

        @Override
        public int numRequeues(Object key) {
            return failures.getOrDefault(key, 0);
        }
    }

    private final RecordingBackoff backoff = new RecordingBackoff();
    /** For the writes that hold the worker ({@link #blocking}) and those that record what they wrote. */
    private final CountDownLatch begun = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<String> done = new CopyOnWriteArrayList<>();

    @Test
    void aFailedWriteIsRetriedAfterTheBackoffUntilItSucceeds() {
        var retries = new CopyOnWriteArrayList<Integer>();
        try (var queue = new WriteQueue(backoff, () -> true)) {
            queue.submit("status of r", attempt -> {
                retries.add(attempt);
                return attempt < 2 ? WriteQueue.Result.RETRY : WriteQueue.Result.DONE;
            });

            await(() -> !backoff.forgotten.isEmpty());
            assertThat("each failure counted", retries, contains(0, 1, 2));
            assertThat(backoff.delayed, contains("status of r", "status of r"));
            assertThat("the back-off starts over", backoff.forgotten, contains("status of r"));
        }
    }

    @Test
    void aFailedWriteWaitsWhileAnotherReplicaLeadsAndIsTriedAgainOnResume() {
        var leader = new AtomicBoolean(false);
        var attempts = new CopyOnWriteArrayList<Integer>();
        var probed = new AtomicBoolean();
        try (var queue = new WriteQueue(backoff, leader::get)) {
            queue.submit("status of r", attempt -> {
                attempts.add(attempt);
                return attempts.size() == 1 ? WriteQueue.Result.RETRY : WriteQueue.Result.DONE;
            });
            // One worker, in order: once the probe ran, the failed write was handled.
            queue.submit("probe", attempt -> {
                probed.set(true);
                return WriteQueue.Result.DONE;
            });
            await(probed::get);
            assertThat(attempts, contains(0));
            assertThat("no retry scheduled", backoff.delayed, empty());

            leader.set(true);
            queue.resume();
            await(() -> attempts.size() == 2);
        }
    }

    @Test
    void theLatestWriteOfAKeyReplacesOneNotBegunYet() throws InterruptedException {
        try (var queue = new WriteQueue(backoff, () -> true)) {
            queue.submit("blocker", blocking("blocker"));
            assertThat(begun.await(30, TimeUnit.SECONDS), is(true));
            queue.submit("status of r", recording("Ready=False"));
            queue.submit("status of r", recording("Ready=True"));
            queue.submit("last", recording("last"));
            release.countDown();

            await(() -> done.contains("last"));
            assertThat(done, contains("blocker", "Ready=True", "last"));
        }
    }

    /** The reach of the webhook, asked again while it is being written, still goes before the status asked after it. */
    @Test
    void aWriteAskedWhileItsKeyRunsGoesBeforeTheKeysAskedAfterIt() throws InterruptedException {
        try (var queue = new WriteQueue(backoff, () -> true)) {
            queue.submit("reach", blocking("reach: none"));
            assertThat(begun.await(30, TimeUnit.SECONDS), is(true));
            queue.submit("reach", recording("reach: team-a"));
            queue.submit("status of team-a/r", recording("Ready=True"));
            release.countDown();

            await(() -> done.size() == 3);
            assertThat(done, contains("reach: none", "reach: team-a", "Ready=True"));
        }
    }

    /** A write that records {@code what} in {@link #done}. */
    private WriteQueue.Write recording(String what) {
        return attempt -> {
            done.add(what);
            return WriteQueue.Result.DONE;
        };
    }

    /** A write that holds the worker from when it has {@link #begun} until {@link #release}, then records. */
    private WriteQueue.Write blocking(String what) {
        return attempt -> {
            begun.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return recording(what).attempt(attempt);
        };
    }
}

package io.remold.server.kube;

import io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** A {@link WriteQueue} back-off that retries at once, counting how often it was asked (over every key). */
final class NoWaitBackoff implements RateLimiter<Object> {
    final AtomicInteger retries = new AtomicInteger();

    @Override
    public Duration when(Object key) {
        retries.incrementAndGet();
        return Duration.ZERO;
    }

    @Override
    public void forget(Object key) {
    }

    @Override
    public int numRequeues(Object key) {
        return retries.get();
    }
}

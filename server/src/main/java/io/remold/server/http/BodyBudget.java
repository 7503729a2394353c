package io.remold.server.http;

import java.util.concurrent.Semaphore;

/**
 * The bytes of request bodies that may be read or held at once, across all requests: without it the request bound
 * alone let 256 bodies of max-body-bytes each be held, far more than the heap (14 header-only requests announcing
 * 8 MiB each ended the server). A request that cannot have its bytes is answered 503 before more of its body is
 * read; the API server then applies the webhook's failure policy.
 */
final class BodyBudget {
    private final long limit;
    private final Semaphore bytes;

    BodyBudget(long limit) {
        if (limit <= 0 || limit > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a body budget must be between 1 byte and 2 GiB: " + limit);
        }
        this.limit = limit;
        this.bytes = new Semaphore((int) limit);
    }

    /** One request's share: what it reserved is given back when it is closed. */
    Lease lease() {
        return new Lease();
    }

    long available() {
        return bytes.availablePermits();
    }

    final class Lease implements AutoCloseable {
        private long held;

        /** Reserves {@code count} more bytes, or refuses the request with 503. */
        void reserve(long count) {
            if (count > limit - held || !bytes.tryAcquire((int) count)) {
                throw new HttpProblem(503, "too many request bodies in flight (more than " + limit
                        + " bytes, max-body-bytes-in-flight): try again");
            }
            held += count;
        }

        @Override
        public void close() {
            bytes.release((int) held);
            held = 0;
        }
    }
}

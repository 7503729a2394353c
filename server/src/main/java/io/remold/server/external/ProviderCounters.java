package io.remold.server.external;

import java.util.concurrent.atomic.LongAdder;

/** A provider's counters; they survive changes of its spec, and go with it. */
final class ProviderCounters {
    /** POSTs sent. */
    final LongAdder calls = new LongAdder();
    /** Keys answered without a new call: from the cache or by a call already under way. */
    final LongAdder hits = new LongAdder();
    /**
     * POSTs that failed as a whole (transport, status, malformed, too big, system error, not idempotent); a key
     * missing from an answer fails only that key and is not counted here.
     */
    final LongAdder failures = new LongAdder();
}

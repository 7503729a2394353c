package io.remold.server.http;

import io.helidon.http.HttpPrologue;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Deadlines for reading a request: its headers and body must arrive within the timeout of its first line (HTTP/1.1)
 * or of its handler's start (HTTP/2 streams, whose headers the connection reads). Helidon 4 reads sockets through
 * channels without a read timeout, so a client that announces a body and never sends it held a request slot for
 * ever (256 of them blocked every endpoint). At its deadline the reading thread is interrupted: a virtual thread
 * blocked on a socket then has the socket closed and its read fails, which frees the slot and the connection.
 *
 * <p>Nearly every deadline ends unexpired, so arming and ending one only adds it to and removes it from a set, and
 * one thread sweeps the set every {@link #tick(Duration) tick} for the expired: a deadline fires up to a tick late.
 * A timer task per request instead (schedule, then cancel) woke the timer thread on most requests, 4-13 µs of CPU
 * each at saturation (BENCHMARKS.md, "The cause of /mutate's extra CPU, and the fix").
 */
final class ReadDeadlines implements AutoCloseable, Http1ConnectionListener {
    /** The longest a deadline fires late; shorter timeouts (tests) are swept at a tenth of theirs. */
    private static final Duration MAX_TICK = Duration.ofMillis(100);

    private final Duration timeout;
    private final LongSupplier nanoClock;
    /** The deadline of the request an HTTP/1.1 connection's thread is reading, from its first line on. */
    private final ThreadLocal<Deadline> current = new ThreadLocal<>();
    /** The armed deadlines: those of reads in progress, so at most one per connection or HTTP/2 stream. */
    private final Set<Deadline> armed = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("remold-read-deadline").factory());

    ReadDeadlines(Duration timeout) {
        this(timeout, System::nanoTime);
    }

    /** With the clock the deadlines are read from ({@link System#nanoTime()} but in tests). */
    ReadDeadlines(Duration timeout, LongSupplier nanoClock) {
        this.timeout = timeout;
        this.nanoClock = nanoClock;
        long tick = tick(timeout).toNanos();
        sweeper.scheduleWithFixedDelay(() -> sweep(nanoClock.getAsLong()), tick, tick, TimeUnit.NANOSECONDS);
    }

    /** How often the armed deadlines are swept: a tenth of the timeout, at most {@link #MAX_TICK}. */
    static Duration tick(Duration timeout) {
        Duration tenth = timeout.dividedBy(10);
        return tenth.compareTo(MAX_TICK) > 0 ? MAX_TICK : tenth.isZero() ? Duration.ofNanos(1) : tenth;
    }

    /** Expires every armed deadline due at {@code nowNanos}: its reader is interrupted. */
    void sweep(long nowNanos) {
        for (Deadline deadline : armed) {
            if (nowNanos - deadline.dueNanos >= 0) {
                deadline.expire();
            }
        }
    }

    Duration timeout() {
        return timeout;
    }

    /** Starts the deadline of the calling thread's read. */
    Deadline start() {
        return new Deadline(Thread.currentThread());
    }

    /** The deadline of the request being read on this thread: the one its first line started, else a new one. */
    Deadline request() {
        Deadline deadline = current.get();
        current.remove();
        return deadline != null ? deadline : start();
    }

    /** Ends the deadline of this thread's request if nothing read its body (a GET), unless it waits for a drain. */
    void requestDone() {
        Deadline deadline = current.get();
        if (deadline != null && !deadline.throughDrain) {
            current.remove();
            deadline.close();
        }
    }

    /**
     * Keeps the deadline of this thread's request (HTTP/1.1) armed after its answer, while Helidon drains the unread
     * body: the next request line ends it, or it expires and closes the connection of a body that never comes.
     */
    void keepThroughDrain() {
        Deadline deadline = current.get();
        if (deadline != null) {
            deadline.throughDrain = true;
        }
    }

    /** HTTP/1.1: a request line arrived; its headers and body are due within the timeout. */
    @Override
    public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
        // The previous request's, if it waited for a drain or Helidon answered it before any handler (a 400, a 503).
        Deadline previous = current.get();
        if (previous != null) {
            previous.close();
        }
        current.set(start());
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
    }

    /** One read's deadline; {@link #close()} it on the reading thread once the read is over, however it ended. */
    final class Deadline implements AutoCloseable {
        private final Thread reader;
        private final long dueNanos;
        /** Guarded by this: the interrupt and its clearing must not cross. */
        private boolean over;
        private boolean expired;
        private boolean closed;
        /** Set on the reading thread: the request's answer is sent, its unread body is being drained. */
        private boolean throughDrain;

        private Deadline(Thread reader) {
            this.reader = reader;
            this.dueNanos = nanoClock.getAsLong() + timeout.toNanos();
            armed.add(this);
        }

        private synchronized void expire() {
            if (!over) {
                over = true;
                expired = true;
                armed.remove(this);
                reader.interrupt();
            }
        }

        /** Whether the deadline passed before the read was over. */
        synchronized boolean expired() {
            return expired;
        }

        /** Ends the deadline; if it had passed, clears the interrupt it caused, so it reaches nothing else. */
        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (expired) {
                Thread.interrupted();
            } else if (!over) {
                over = true;
                armed.remove(this);
            }
        }
    }
}

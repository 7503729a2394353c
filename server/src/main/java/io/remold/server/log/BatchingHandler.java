package io.remold.server.log;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.ErrorManager;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

/**
 * A log handler that formats each line on the caller's thread and writes it on its own thread, so that a request
 * never holds a lock around a write to stdout: one patched request logs one line, and writing them one by one cost
 * a third of /mutate's throughput. Lines are written in batches of whatever is queued, at most 64 ms after they
 * were logged. A full queue makes callers wait: lines are never dropped.
 * {@link #flush()} and {@link #close()} return once every line published before them is written.
 */
final class BatchingHandler extends Handler {
    private static final int CAPACITY = 8192;
    private static final int BATCH = 1024;
    private static final long FLUSH_WAIT_MILLIS = 5_000;
    /** The writer polls, backing off while idle: waking it on every line cost a thread switch per request. */
    private static final long MIN_PAUSE_MILLIS = 1;
    private static final long MAX_PAUSE_MILLIS = 64;
    /**
     * After a batch that did not fill, the writer waits this long before the next: at 16,000 lines a second,
     * writing whatever had arrived since the last write took 4% of a core in a thousand small writes a second.
     */
    private static final long GATHER_MILLIS = 10;

    private final BlockingQueue<String> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final OutputStream out;
    private final AtomicLong published = new AtomicLong();
    private final Object progress = new Object();
    private long written;
    private final Thread writer;

    BatchingHandler(OutputStream out, Formatter formatter) {
        this.out = out;
        setFormatter(formatter);
        writer = Thread.ofPlatform().name("remold-log-writer").daemon().unstarted(this::drain);
        writer.start();
    }

    @Override
    public void publish(LogRecord record) {
        if (!isLoggable(record)) {
            return;
        }
        String line;
        try {
            line = getFormatter().format(record);
        } catch (RuntimeException e) {
            reportError("cannot format a log record", e, ErrorManager.FORMAT_FAILURE);
            return;
        }
        published.incrementAndGet();
        // offer first: put() refuses an interrupted thread even when there is room, and client-java's leader elector
        // logs why it failed from a thread it has just interrupted (seen in the soak: that line was lost).
        if (queue.offer(line)) {
            return;
        }
        try {
            queue.put(line);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            published.decrementAndGet();
            reportError("interrupted while queueing a log line", e, ErrorManager.WRITE_FAILURE);
        }
    }

    private void drain() {
        var batch = new ArrayList<String>(BATCH);
        var text = new StringBuilder(BATCH * 256);
        long idleMillis = MIN_PAUSE_MILLIS;
        while (true) {
            long waitMillis;
            if (queue.drainTo(batch, BATCH) == 0) {
                waitMillis = idleMillis;
                idleMillis = Math.min(idleMillis * 2, MAX_PAUSE_MILLIS);
            } else {
                write(batch, text);
                idleMillis = MIN_PAUSE_MILLIS;
                waitMillis = batch.size() == BATCH ? 0 : GATHER_MILLIS;
                batch.clear();
            }
            if (waitMillis > 0) {
                try {
                    Thread.sleep(waitMillis);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void write(List<String> batch, StringBuilder text) {
        for (String line : batch) {
            text.append(line);
        }
        try {
            // One write per batch: a line printed straight to the same stream never lands inside a log line.
            out.write(text.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            reportError("cannot write log lines", e, ErrorManager.WRITE_FAILURE);
        }
        text.setLength(0);
        synchronized (progress) {
            written += batch.size();
            progress.notifyAll();
        }
    }

    /** Waits (at most a few seconds) until every line published so far is written and flushed. */
    @Override
    public void flush() {
        long target = published.get();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FLUSH_WAIT_MILLIS);
        synchronized (progress) {
            while (written < target && writer.isAlive()) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return;
                }
                try {
                    progress.wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        flush();
        writer.interrupt();
    }
}

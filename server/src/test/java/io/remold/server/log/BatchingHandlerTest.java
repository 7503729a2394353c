package io.remold.server.log;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.logging.ErrorManager;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

/** Lines logged from many threads all arrive, whole, once each; flush and close wait for them. */
class BatchingHandlerTest {
    private static final Formatter MESSAGE_LINES = new Formatter() {
        @Override
        public String format(LogRecord record) {
            if (record.getMessage().equals("unformattable")) {
                throw new IllegalStateException("cannot format");
            }
            return record.getMessage() + "\n";
        }
    };

    /** A synchronised sink, as System.out is. */
    private static final class Sink extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
        }

        synchronized List<String> lines() {
            return bytes.toString(StandardCharsets.UTF_8).lines().toList();
        }
    }

    @Test
    void everyLineFromEveryThreadIsWrittenOnceAndWhole() throws InterruptedException {
        var sink = new Sink();
        var handler = new BatchingHandler(sink, MESSAGE_LINES);
        int threads = 8;
        int perThread = 5_000;
        var start = new CountDownLatch(1);
        var workers = new ArrayList<Thread>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers.add(Thread.ofVirtual().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    handler.publish(new LogRecord(Level.INFO, "thread " + id + " line " + i + " é"));
                }
            }));
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        handler.flush();
        List<String> lines = sink.lines();
        assertThat(lines.size(), is(threads * perThread));
        assertThat(new HashSet<>(lines).size(), is(threads * perThread));
        assertThat(lines, hasItem("thread 7 line 4999 é"));
        handler.close();
    }

    @Test
    void aLineFromAnInterruptedThreadIsWrittenAndTheThreadStaysInterrupted() {
        var sink = new Sink();
        var handler = new BatchingHandler(sink, MESSAGE_LINES);
        Thread.currentThread().interrupt();
        handler.publish(new LogRecord(Level.SEVERE, "failed to renew the lease"));
        assertThat(Thread.interrupted(), is(true));
        handler.close();
        assertThat(sink.lines(), equalTo(List.of("failed to renew the lease")));
    }

    @Test
    void closeWritesWhatWasQueuedAndAFormatterErrorIsReportedNotThrown() {
        var sink = new Sink();
        var handler = new BatchingHandler(sink, MESSAGE_LINES);
        handler.setLevel(Level.INFO);
        var errors = new ArrayList<Integer>();
        handler.setErrorManager(new ErrorManager() {
            @Override
            public synchronized void error(String msg, Exception ex, int code) {
                errors.add(code);
            }
        });
        handler.publish(new LogRecord(Level.INFO, "first"));
        handler.publish(new LogRecord(Level.INFO, "unformattable"));
        handler.publish(new LogRecord(Level.FINE, "below the level"));
        handler.publish(new LogRecord(Level.INFO, "last"));
        handler.close();
        assertThat(sink.lines(), equalTo(List.of("first", "last")));
        assertThat(errors, equalTo(List.of(ErrorManager.FORMAT_FAILURE)));
    }
}

package io.remold.server.http;

import io.remold.server.log.Logs;

import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Test helper: the server's decision log lines, formatted as JSON, into {@code lines} while open. */
final class DecisionLog extends Handler implements AutoCloseable {
    private static final Logger DECISIONS = Logger.getLogger("io.remold.server.decision");
    private final Logs.JsonLines formatter = new Logs.JsonLines();
    private final List<String> lines;

    DecisionLog(List<String> lines) {
        this.lines = lines;
        DECISIONS.addHandler(this);
    }

    @Override
    public void publish(LogRecord record) {
        lines.add(formatter.format(record));
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        DECISIONS.removeHandler(this);
    }
}

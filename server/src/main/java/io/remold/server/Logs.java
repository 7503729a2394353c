package io.remold.server;

import jakarta.json.stream.JsonGenerator;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.OutputStream;
import java.time.Instant;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;

/**
 * One log line per event, as JSON or as text, for Remold's own logs and for everything that logs through
 * java.util.logging (Helidon, client-java via slf4j-jdk14). Structured fields travel as a {@code Map} in the
 * record's first parameter.
 */
final class Logs {
    private Logs() {
    }

    /** Replaces the root handlers with one that writes lines to {@code out}. */
    static void configure(ServerConfig.LogFormat format, OutputStream out) {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        Handler handler = new StreamHandler(out, format == ServerConfig.LogFormat.json ? new JsonLines() : new TextLines()) {
            @Override
            public synchronized void publish(LogRecord record) {
                super.publish(record);
                flush();
            }
        };
        handler.setLevel(Level.INFO);
        root.addHandler(handler);
        root.setLevel(Level.INFO);
    }

    /** Logs {@code message} with structured fields. */
    static void event(Logger logger, Level level, String message, Map<String, ?> fields) {
        if (logger.isLoggable(level)) {
            var record = new LogRecord(level, message);
            record.setLoggerName(logger.getName());
            record.setParameters(new Object[]{fields});
            logger.log(record);
        }
    }

    private static Map<?, ?> fields(LogRecord record) {
        Object[] parameters = record.getParameters();
        return parameters != null && parameters.length == 1 && parameters[0] instanceof Map<?, ?> m ? m : Map.of();
    }

    private static String stackTrace(Throwable t) {
        var out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    static final class JsonLines extends Formatter {
        @Override
        public String format(LogRecord record) {
            var out = new StringWriter(256);
            try (JsonGenerator g = AdmissionReview.JSON.createGenerator(out)) {
                g.writeStartObject()
                        .write("time", Instant.ofEpochMilli(record.getMillis()).toString())
                        .write("level", record.getLevel().getName())
                        .write("logger", String.valueOf(record.getLoggerName()))
                        .write("message", fields(record).isEmpty() ? formatMessage(record) : record.getMessage());
                fields(record).forEach((k, v) -> {
                    if (v instanceof Iterable<?> items) {
                        g.writeStartArray(String.valueOf(k));
                        items.forEach(item -> g.write(String.valueOf(item)));
                        g.writeEnd();
                    } else if (v instanceof Long || v instanceof Integer) {
                        g.write(String.valueOf(k), ((Number) v).longValue());
                    } else if (v instanceof Number n) {
                        g.write(String.valueOf(k), n.doubleValue());
                    } else if (v instanceof Boolean b) {
                        g.write(String.valueOf(k), b);
                    } else {
                        g.write(String.valueOf(k), String.valueOf(v));
                    }
                });
                if (record.getThrown() != null) {
                    g.write("error", stackTrace(record.getThrown()));
                }
                g.writeEnd();
            }
            return out.append('\n').toString();
        }
    }

    static final class TextLines extends Formatter {
        @Override
        public String format(LogRecord record) {
            var sb = new StringBuilder(160)
                    .append(Instant.ofEpochMilli(record.getMillis())).append(' ')
                    .append(record.getLevel().getName()).append(' ')
                    .append(record.getLoggerName()).append(": ")
                    .append(fields(record).isEmpty() ? formatMessage(record) : record.getMessage());
            fields(record).forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
            if (record.getThrown() != null) {
                sb.append('\n').append(stackTrace(record.getThrown()));
            }
            return sb.append('\n').toString();
        }
    }
}

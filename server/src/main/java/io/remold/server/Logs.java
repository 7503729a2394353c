package io.remold.server;

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
        Handler handler = new BatchingHandler(out,
                format == ServerConfig.LogFormat.json ? new JsonLines() : new TextLines());
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

    /**
     * JSON lines written straight into a StringBuilder: the decision line of every changed request made a
     * JsonGenerator over a StringWriter cost about 7% of the server's CPU. The output is what the generator wrote:
     * integers for longs and ints, {@code Double.toString} for other numbers (non-finite ones, which it refused,
     * as strings), control characters escaped.
     */
    static final class JsonLines extends Formatter {
        private static final char[] HEX = "0123456789abcdef".toCharArray();

        @Override
        public String format(LogRecord record) {
            Map<?, ?> fields = fields(record);
            var line = new StringBuilder(256).append('{');
            field(line, "time").append('"').append(Instant.ofEpochMilli(record.getMillis())).append('"');
            string(field(line, "level"), record.getLevel().getName());
            string(field(line, "logger"), String.valueOf(record.getLoggerName()));
            String message = fields.isEmpty() ? formatMessage(record) : record.getMessage();
            string(field(line, "message"), String.valueOf(message));
            fields.forEach((k, v) -> {
                field(line, String.valueOf(k));
                if (v instanceof Iterable<?> items) {
                    line.append('[');
                    boolean first = true;
                    for (Object item : items) {
                        string(first ? line : line.append(','), String.valueOf(item));
                        first = false;
                    }
                    line.append(']');
                } else if (v instanceof Long || v instanceof Integer) {
                    line.append(((Number) v).longValue());
                } else if (v instanceof Number n && Double.isFinite(n.doubleValue())) {
                    line.append(n.doubleValue());
                } else if (v instanceof Boolean b) {
                    line.append(b.booleanValue());
                } else {
                    string(line, String.valueOf(v));
                }
            });
            if (record.getThrown() != null) {
                string(field(line, "error"), stackTrace(record.getThrown()));
            }
            return line.append("}\n").toString();
        }

        /** Appends the name of a field (after a comma unless it is the first) and its colon. */
        private static StringBuilder field(StringBuilder line, String name) {
            if (line.length() > 1) {
                line.append(',');
            }
            return string(line, name).append(':');
        }

        /** Appends {@code text} as a JSON string, escaped as JsonGenerator escapes it; plain runs are copied whole. */
        private static StringBuilder string(StringBuilder line, String text) {
            line.append('"');
            int plain = 0;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c >= 0x20 && c != '"' && c != '\\') {
                    continue;
                }
                line.append(text, plain, i).append('\\');
                switch (c) {
                    case '"', '\\' -> line.append(c);
                    case '\b' -> line.append('b');
                    case '\f' -> line.append('f');
                    case '\n' -> line.append('n');
                    case '\r' -> line.append('r');
                    case '\t' -> line.append('t');
                    default -> line.append("u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
                }
                plain = i + 1;
            }
            line.append(text, plain, text.length());
            return line.append('"');
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

package io.remold.server.log;

import io.remold.json.JsonTree;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
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
public final class Logs {
    private Logs() {
    }

    /**
     * Remold's loggers ({@code io.remold.*}), held here: java.util.logging keeps loggers weakly, and a collected one
     * would forget its level.
     */
    private static final Logger REMOLD = Logger.getLogger("io.remold");

    /**
     * Replaces the root handlers with one that writes lines to {@code out}: Remold's records from {@code level} on,
     * other libraries' (Helidon, client-java) from info on, so that debug is Remold's own detail only.
     */
    public static void configure(LogFormat format, LogLevel level, OutputStream out) {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        Handler handler = new BatchingHandler(out,
                format == LogFormat.json ? new JsonLines() : new TextLines());
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        root.setLevel(Level.INFO);
        REMOLD.setLevel(level.level());
    }

    /** Logs {@code message} with structured fields. */
    public static void event(Logger logger, Level level, String message, Map<String, ?> fields) {
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
     * {@link Instant#toString} of a millisecond instant, with the date and time of the current second formatted once
     * per second: {@code DateTimeFormatter} cost about 1% of the server's CPU, one call per decision line.
     */
    static final class Timestamps {
        private record Second(long epochSecond, String text) {
        }

        private static volatile Second last = new Second(Long.MIN_VALUE, "");

        private Timestamps() {
        }

        static StringBuilder append(StringBuilder sb, long epochMillis) {
            long epochSecond = Math.floorDiv(epochMillis, 1000);
            int millis = (int) Math.floorMod(epochMillis, 1000);
            Second second = last;
            if (second.epochSecond() != epochSecond) {
                String text = Instant.ofEpochSecond(epochSecond).toString(); // ends in Z: no fraction at .000
                second = new Second(epochSecond, text.substring(0, text.length() - 1));
                last = second;
            }
            sb.append(second.text());
            if (millis != 0) {
                sb.append('.').append((char) ('0' + millis / 100)).append((char) ('0' + millis / 10 % 10))
                        .append((char) ('0' + millis % 10));
            }
            return sb.append('Z');
        }
    }

    /**
     * JSON lines written straight into a StringBuilder: the decision line of every changed request made a
     * JsonGenerator over a StringWriter cost about 7% of the server's CPU. The output is what the generator wrote:
     * integers for longs and ints, {@code Double.toString} for other numbers (non-finite ones, which it refused,
     * as strings), control characters escaped.
     */
    public static final class JsonLines extends Formatter {
        @Override
        public String format(LogRecord record) {
            Map<?, ?> fields = fields(record);
            var line = new StringBuilder(256).append('{');
            Timestamps.append(field(line, "time").append('"'), record.getMillis()).append('"');
            JsonTree.quote(record.getLevel().getName(), field(line, "level"));
            JsonTree.quote(String.valueOf(record.getLoggerName()), field(line, "logger"));
            String message = fields.isEmpty() ? formatMessage(record) : record.getMessage();
            JsonTree.quote(String.valueOf(message), field(line, "message"));
            fields.forEach((k, v) -> {
                field(line, String.valueOf(k));
                if (v instanceof Iterable<?> items) {
                    line.append('[');
                    boolean first = true;
                    for (Object item : items) {
                        JsonTree.quote(String.valueOf(item), first ? line : line.append(','));
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
                    JsonTree.quote(String.valueOf(v), line);
                }
            });
            if (record.getThrown() != null) {
                JsonTree.quote(stackTrace(record.getThrown()), field(line, "error"));
            }
            return line.append("}\n").toString();
        }

        /** Appends the name of a field (after a comma unless it is the first) and its colon. */
        private static StringBuilder field(StringBuilder line, String name) {
            if (line.length() > 1) {
                line.append(',');
            }
            return JsonTree.quote(name, line).append(':');
        }
    }

    static final class TextLines extends Formatter {
        @Override
        public String format(LogRecord record) {
            var sb = Timestamps.append(new StringBuilder(160), record.getMillis()).append(' ')
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

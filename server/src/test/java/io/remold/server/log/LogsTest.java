package io.remold.server.log;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.StringReader;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

/** JSON log lines: the fields, numbers and escapes that the JsonGenerator used to write. */
class LogsTest {

    private static String line(String message, Map<String, ?> fields) {
        var record = new LogRecord(Level.INFO, message);
        record.setInstant(java.time.Instant.parse("2026-11-23T12:00:00.123Z"));
        record.setLoggerName("io.remold.server.decision");
        if (fields != null) {
            record.setParameters(new Object[]{fields});
        }
        return new Logs.JsonLines().format(record);
    }

    @ParameterizedTest
    @ValueSource(longs = {0L, 1L, 10L, 100L, 999L, 1_000L, 1_763_899_200_123L, 1_763_899_200_600L,
        1_763_899_259_999L, -1L, -1_000L, -86_400_001L, 253_402_300_799_999L})
    void timestampsAreWhatInstantPrints(long epochMillis) {
        // Twice: the second call reuses the cached second.
        for (int i = 0; i < 2; i++) {
            assertThat(Logs.Timestamps.append(new StringBuilder(), epochMillis).toString(),
                is(Instant.ofEpochMilli(epochMillis).toString()));
        }
    }

    /** What the configured root handler writes of one record per level, of Remold's loggers and of another's. */
    private static List<String> written(LogLevel level) throws java.io.IOException {
        var out = new java.io.ByteArrayOutputStream();
        try {
            Logs.configure(LogFormat.text, level, out);
            for (String logger : List.of("io.remold.server.leader", "io.helidon.webserver")) {
                for (Level l : List.of(Level.SEVERE, Level.WARNING, Level.INFO, Level.FINE, Level.FINER)) {
                    java.util.logging.Logger.getLogger(logger).log(l, "{0} line", l);
                }
            }
            java.util.logging.Logger.getLogger("").getHandlers()[0].flush();
        } finally {
            java.util.logging.LogManager.getLogManager().readConfiguration();
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8).lines()
                .map(line -> line.substring(line.indexOf(' ') + 1)).toList();
    }

    static Stream<Arguments> levels() {
        return Stream.of(
                Arguments.of(LogLevel.error, List.of("SEVERE")),
                Arguments.of(LogLevel.warn, List.of("SEVERE", "WARNING")),
                Arguments.of(LogLevel.info, List.of("SEVERE", "WARNING", "INFO")),
                Arguments.of(LogLevel.debug, List.of("SEVERE", "WARNING", "INFO", "FINE")));
    }

    @ParameterizedTest
    @MethodSource("levels")
    void theLogLevelSetsRemoldsLoggersAndLeavesOthersAtInfo(LogLevel level, List<String> remold)
            throws java.io.IOException {
        var expected = new java.util.ArrayList<String>();
        remold.forEach(l -> expected.add(l + " io.remold.server.leader: " + l + " line"));
        List.of("SEVERE", "WARNING", "INFO").forEach(l -> expected.add(l + " io.helidon.webserver: " + l + " line"));
        assertThat(written(level), is(expected));
    }

    @Test
    void writesTheFieldsInOrderWithTheirTypes() {
        var fields = new LinkedHashMap<String, Object>();
        fields.put("rules", List.of("team-a/one", "team-a/two"));
        fields.put("none", List.of());
        fields.put("count", 3);
        fields.put("big", 12_345_678_901L);
        fields.put("durationMs", 0.123);
        fields.put("small", 1.0E-4);
        fields.put("whole", 1.0);
        fields.put("large", 123456789.0);
        fields.put("notANumber", Double.NaN);
        fields.put("dryRun", false);
        fields.put("kind", "Pod");
        fields.put("absent", null);
        assertThat(line("patched", fields), is("""
                {"time":"2026-11-23T12:00:00.123Z","level":"INFO","logger":"io.remold.server.decision",\
                "message":"patched","rules":["team-a/one","team-a/two"],"none":[],"count":3,"big":12345678901,\
                "durationMs":0.123,"small":1.0E-4,"whole":1.0,"large":1.23456789E8,"notANumber":"NaN",\
                "dryRun":false,"kind":"Pod","absent":"null"}
                """));
    }

    @Test
    void withoutFieldsTheMessageIsFormattedAndAnErrorCarriesItsStackTrace() {
        var record = new LogRecord(Level.WARNING, "rule {0} failed");
        record.setParameters(new Object[]{"a/b"});
        record.setThrown(new IllegalStateException("boom"));
        String line = new Logs.JsonLines().format(record);
        assertThat(line, endsWith("}\n"));
        JsonObject json = jakarta.json.Json.createReader(new StringReader(line)).readObject();
        assertThat(json.getString("level"), is("WARNING"));
        assertThat(json.getString("logger"), is("null"));
        assertThat(json.getString("message"), is("rule a/b failed"));
        assertThat(json.getString("error"), startsWith("java.lang.IllegalStateException: boom\n\tat "));
    }

    static Stream<Arguments> escapes() {
        return Stream.of(
                Arguments.of("plain", "\"plain\""),
                Arguments.of("", "\"\""),
                Arguments.of("say \"hi\"", "\"say \\\"hi\\\"\""),
                Arguments.of("C:\\dir\\", "\"C:\\\\dir\\\\\""),
                Arguments.of("a\nb\r\tc", "\"a\\nb\\r\\tc\""),
                Arguments.of("\b\f", "\"\\b\\f\""),
                Arguments.of("\u0000\u000b\u001a\u001f", "\"\\u0000\\u000b\\u001a\\u001f\""),
                Arguments.of("/ \u007f \u2028 é 😀", "\"/ \u007f \u2028 é 😀\""),
                Arguments.of("\"", "\"\\\"\""));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("escapes")
    void escapesStringsAndKeys(String text, String expected) {
        String line = line("m", Map.of(text, text));
        assertThat(line, endsWith("\"message\":\"m\"," + expected + ":" + expected + "}\n"));
        JsonObject json = jakarta.json.Json.createReader(new StringReader(line)).readObject();
        assertThat(json.getString(text), is(text));
    }
}

package io.remold.gatekeeper.match;

import io.remold.gatekeeper.ConformanceCorpus;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.util.Map;

/** Gatekeeper's {@code TestMatch} and {@code Test_namesMatch} (category {@code match}). */
class MatchConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();
    private static final JsonProvider PROVIDER = JsonProvider.provider();

    @Test
    void corpus() {
        ConformanceCorpus.run("match", KNOWN_DEVIATIONS, MatchConformanceTest::check, "match", "names_match");
    }

    private static String check(JsonObject c) {
        JsonObject block = c.getJsonObject("match");
        // Test_namesMatch calls the name criterion alone.
        Match match = Match.parse(c.getString("kind").equals("names_match") ? nameOnly(block) : block);
        String sourceText = c.getString("source", "");
        Source source = sourceText.isEmpty() ? null : Source.valueOf(sourceText);
        JsonObject expect = c.getJsonObject("expect");
        boolean matches;
        try {
            matches = match.matches(objectOrNull(c.get("object")), objectOrNull(c.get("namespace")), source);
        } catch (MatchException e) {
            String want = expect.getString("error_contains", null);
            if (want == null) {
                return "unexpected error: " + e.getMessage();
            }
            return e.getMessage().contains(want) ? null : "error \"" + e.getMessage() + "\" lacks \"" + want + "\"";
        }
        if (expect.containsKey("error_contains")) {
            return "no error, want one containing \"" + expect.getString("error_contains") + "\"";
        }
        return matches == expect.getBoolean("matches") ? null : "matches " + matches;
    }

    private static JsonObject nameOnly(JsonObject block) {
        return block.containsKey("name") ? PROVIDER.createObjectBuilder().add("name", block.get("name")).build()
                : JsonValue.EMPTY_JSON_OBJECT;
    }

    private static JsonObject objectOrNull(JsonValue value) {
        return value instanceof JsonObject o ? o : null;
    }
}

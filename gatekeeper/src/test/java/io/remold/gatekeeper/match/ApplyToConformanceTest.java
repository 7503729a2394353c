package io.remold.gatekeeper.match;

import io.remold.gatekeeper.ConformanceCorpus;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/**
 * Gatekeeper's applyTo tests (category {@code apply_to}, but for the mutator kinds, and {@code validation} kind
 * {@code apply_to_operations}). Single entries are built as written, without validation, as the Go tests build them.
 */
class ApplyToConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    @Test
    void corpus() {
        ConformanceCorpus.run("apply_to", KNOWN_DEVIATIONS, ApplyToConformanceTest::check, "matches_operation",
                "effective_operations", "entry_matches_gvk", "applies_gvk_and_operation", "applies_to");
    }

    @Test
    void validation() {
        ConformanceCorpus.run("validation", KNOWN_DEVIATIONS, ApplyToConformanceTest::checkValidation,
                "apply_to_operations");
    }

    private static String check(JsonObject c) {
        JsonObject expect = c.getJsonObject("expect");
        Object got = switch (c.getString("kind")) {
            case "matches_operation" -> entry(c).matchesOperation(c.getString("operation"));
            case "effective_operations" -> entry(c).effectiveOperations();
            case "entry_matches_gvk" -> entry(c).matches(gvk(c));
            case "applies_gvk_and_operation" -> ApplyTo.appliesTo(entries(c), gvk(c), c.getString("operation"));
            case "applies_to" -> entries(c).stream().anyMatch(e -> e.matches(gvk(c)));
            default -> throw new IllegalArgumentException(c.getString("kind"));
        };
        Object want = switch (c.getString("kind")) {
            case "effective_operations" -> strings(expect.getJsonArray("operations"));
            case "applies_gvk_and_operation", "applies_to" -> expect.getBoolean("applies");
            default -> expect.getBoolean("matches");
        };
        return got.equals(want) ? null : "got " + got + ", want " + want;
    }

    private static String checkValidation(JsonObject c) {
        JsonObject expect = c.getJsonObject("expect");
        try {
            ApplyTo.parseList(c.getJsonArray("applyTo"));
        } catch (InvalidMatchException e) {
            if (expect.getBoolean("valid")) {
                return "refused: " + e.getMessage();
            }
            String want = expect.getString("error_contains", "");
            return e.reason().contains(want) ? null : "reason \"" + e.reason() + "\" lacks \"" + want + "\"";
        }
        return expect.getBoolean("valid") ? null : "accepted";
    }

    private static ApplyTo entry(JsonObject c) {
        return ApplyTo.parseEntry(c.getJsonObject("applyToEntry"), "");
    }

    private static List<ApplyTo> entries(JsonObject c) {
        JsonArray list = c.getJsonArray("applyTo");
        return list.stream().map(v -> ApplyTo.parseEntry(v.asJsonObject(), "")).toList();
    }

    private static GroupVersionKind gvk(JsonObject c) {
        JsonObject g = c.getJsonObject("gvk");
        return new GroupVersionKind(g.getString("group"), g.getString("version"), g.getString("kind"));
    }

    private static List<String> strings(JsonArray array) {
        return array.getValuesAs(JsonString.class).stream().map(JsonString::getString).toList();
    }
}

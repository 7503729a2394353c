package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.ConformanceCorpus;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/** Gatekeeper's ModifySet set operation ({@code set_values}: merge or prune on {@code {field: existing}}). */
class ModifySetConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    @Test
    void setValues() {
        ConformanceCorpus.run("modify_set", KNOWN_DEVIATIONS, ModifySetConformanceTest::check, "set_values");
    }

    private static String check(JsonObject c) {
        var operation = ModifySet.Operation.valueOf(c.getString("operation").toUpperCase());
        List<JsonValue> values = c.get("values") instanceof JsonArray a ? List.copyOf(a) : null;
        JsonValue existing = c.getBoolean("existing_absent", false) ? null : c.get("existing");
        JsonObject expect = c.getJsonObject("expect");
        JsonValue result;
        try {
            result = operation.apply(existing, values);
        } catch (MutationException e) {
            return expect.getBoolean("error") ? null : "unexpected error: " + e.getMessage();
        }
        if (expect.getBoolean("error")) {
            return "expected an error, got " + result;
        }
        if (expect.getBoolean("field_not_checked", false)) {
            return null;
        }
        JsonValue wanted = expect.get("field");
        return wanted.equals(result) ? null : "expected " + wanted + ", got " + result;
    }
}

package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.ConformanceCorpus;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.Map;

/** Gatekeeper's Assign ({@code assign}): whole mutators on objects, and {@code AssignField.GetValue}. */
class AssignConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    @Test
    void mutate() {
        ConformanceCorpus.run("assign", KNOWN_DEVIATIONS, Assertions::checkMutator, "mutate");
    }

    @Test
    void assignValue() {
        ConformanceCorpus.run("assign", KNOWN_DEVIATIONS, AssignConformanceTest::checkValue, "assign_value");
    }

    private static String checkValue(JsonObject c) throws MutationException {
        AssignField field = AssignField.parse(c.getJsonObject("assign"), "assign");
        JsonValue value = field.value(new Mutable(c.getJsonObject("object"), null, null, null, null));
        JsonValue wanted = c.getJsonObject("expect").get("value");
        return wanted.equals(value) ? null : "expected " + wanted + ", got " + value;
    }
}

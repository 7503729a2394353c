package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.ConformanceCorpus;
import io.remold.gatekeeper.path.Location;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.Map;

/**
 * Gatekeeper's core mutation function with its default setter and no mutator-level validation ({@code
 * core_setter}, Gatekeeper's {@code testhelpers.DummyMutator}).
 */
class CoreSetterConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    @Test
    void mutate() {
        ConformanceCorpus.run("core_setter", KNOWN_DEVIATIONS, CoreSetterConformanceTest::check, "mutate");
    }

    private static String check(JsonObject c) {
        JsonObject dummy = c.getJsonObject("mutator");
        var setter = new Assign.ValueSetter(dummy.get("value"));
        var path = Location.parse(dummy.getString("location"));
        return Assertions.checkMutate(c, input -> Core.mutate(path, PathTests.NONE, setter, input));
    }
}

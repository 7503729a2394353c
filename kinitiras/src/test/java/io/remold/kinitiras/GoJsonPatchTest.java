package io.remold.kinitiras;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Collections;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** kinitiras's JSON patch semantics (evanphx/json-patch v4): {@code json-patch.yaml}. */
class GoJsonPatchTest {
    static Stream<Arguments> cases() {
        return Cases.of("json-patch.yaml");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void applies(String name, JsonObject c) throws PolicyEvaluationException {
        JsonValue doc = c.get("doc");
        var patch = c.getJsonArray("patch").getValuesAs(JsonObject.class);
        if (c.containsKey("repeat")) {
            patch = Collections.nCopies(c.getInt("repeat"), patch.get(0));
        }
        var operations = patch;
        String error = Cases.text(c, "error");
        if (error != null) {
            var e = assertThrows(PolicyEvaluationException.class, () -> GoJsonPatch.apply(doc, operations));
            assertThat(e.getMessage(), is(error));
        } else {
            assertThat(GoJsonPatch.apply(doc, patch), is(c.get("want")));
        }
    }
}

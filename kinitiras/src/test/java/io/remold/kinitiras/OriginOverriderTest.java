package io.remold.kinitiras;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code origin} overriders as kinitiras's newest engine computes their patches: {@code origin.yaml}. */
class OriginOverriderTest {
    static Stream<Arguments> cases() {
        return Cases.of("origin.yaml");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void patches(String name, JsonObject c) throws PolicyEvaluationException {
        Overrider origin = originOf(c);
        var input = new PolicyInput("CREATE", c.get("object"), JsonValue.NULL, null);
        String error = Cases.text(c, "error");
        if (error != null) {
            var e = assertThrows(PolicyEvaluationException.class, () -> origin.patches(input));
            assertThat(e.getMessage(), is(error));
        } else {
            assertThat(Json.createArrayBuilder(origin.patches(input)).build(), is(c.getJsonArray("want")));
        }
    }

    /** The case's overriders read as a policy's, so the reader's defaults (absent values) are the ones tested. */
    private static Overrider originOf(JsonObject c) {
        Policy policy = PolicyReader.read(Json.createObjectBuilder()
                .add("apiVersion", "policy.kcloudlabs.io/v1alpha1").add("kind", "ClusterOverridePolicy")
                .add("metadata", Json.createObjectBuilder().add("name", "p"))
                .add("spec", Json.createObjectBuilder().add("overrideRules", Json.createArrayBuilder()
                        .add(Json.createObjectBuilder().add("overriders", Json.createObjectBuilder()
                                .add("origin", c.getJsonArray("origin"))))))
                .build(), Forms.shared());
        return policy.overrideRules().get(0).forms().get(0);
    }
}

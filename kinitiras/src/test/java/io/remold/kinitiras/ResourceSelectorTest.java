package io.remold.kinitiras;

import io.remold.api.AdmissionOperation;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code resourceSelectors} as kinitiras matches them: {@code selectors.yaml}. */
class ResourceSelectorTest {
    private static final JsonObject OBJECT = Cases.file("selectors.yaml").getJsonObject("object");

    static Stream<Arguments> cases() {
        return Cases.of("selectors.yaml");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void selects(String name, JsonObject c) {
        JsonObject manifest = Json.createObjectBuilder()
                .add("apiVersion", "policy.kcloudlabs.io/v1alpha1").add("kind", "ClusterOverridePolicy")
                .add("metadata", Json.createObjectBuilder().add("name", "p"))
                .add("spec", Json.createObjectBuilder().add("resourceSelectors", c.getJsonArray("selectors"))
                        .add("overrideRules", Json.createArrayBuilder().add(Json.createObjectBuilder()
                                .add("overriders", Json.createObjectBuilder()))))
                .build();
        String refused = Cases.text(c, "refused");
        if (refused != null) {
            var e = assertThrows(InvalidPolicyException.class, () -> PolicyReader.read(manifest, Forms.shared()));
            assertThat(e.getMessage(), is(refused));
            return;
        }
        Policy policy = PolicyReader.read(manifest, Forms.shared());
        assertThat(KinitirasStage.skipped(policy, OBJECT, "default", AdmissionOperation.CREATE,
                KinitirasOptions.DEFAULTS).isEmpty(),
                is(Cases.isTrue(c, "want")));
    }
}

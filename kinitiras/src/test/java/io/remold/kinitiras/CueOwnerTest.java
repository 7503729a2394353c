package io.remold.kinitiras;

import io.remold.cue.CompiledCue;
import io.remold.cue.CueEvaluator;
import io.remold.cue.CueEvaluator.Owner;
import io.remold.kinitiras.cue.CueSettings;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * Who a policy's CUE is charged to in the workers' fair share: an OverridePolicy's namespace, the administrator for
 * the cluster-wide kinds, whatever the forms it was read with were charged to.
 */
class CueOwnerTest {
    static Stream<Arguments> policies() {
        return Stream.of(
                Arguments.of("OverridePolicy", "team-a", "overrideRules", new Owner.Tenant("team-a")),
                Arguments.of("ClusterOverridePolicy", null, "overrideRules", Owner.ADMINISTRATOR),
                Arguments.of("ClusterValidatePolicy", null, "validateRules", Owner.ADMINISTRATOR));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("policies")
    void aPolicysCueIsChargedToItsOwner(String kind, String namespace, String rules, Owner owner) {
        List<Owner> charged = new ArrayList<>();
        CueEvaluator recording = new CueEvaluator() {
            @Override
            public CompiledCue compile(String source, Owner to) {
                charged.add(to);
                return () -> source;
            }

            @Override
            public JsonValue evaluate(CompiledCue cue, List<CueParameter> parameters, String outputPath,
                                      long deadlineNanos, HttpTasks http) {
                throw new AssertionError("not evaluated when read");
            }

            @Override
            public void close() {
            }
        };
        // Charged to another tenant on purpose: the policy's own owner must win.
        Forms forms = new Forms(new CueSettings(recording, Duration.ofSeconds(1), new Owner.Tenant("elsewhere")));
        JsonObjectBuilder metadata = Json.createObjectBuilder().add("name", "p");
        if (namespace != null) {
            metadata.add("namespace", namespace);
        }
        JsonObject cue = Json.createObjectBuilder().add("cue", "object: _\npatches: []\n").build();
        JsonObject rule = rules.equals("overrideRules") ? Json.createObjectBuilder().add("overriders", cue).build()
                : cue;
        PolicyReader.read(Json.createObjectBuilder()
                .add("apiVersion", "policy.kcloudlabs.io/v1alpha1").add("kind", kind).add("metadata", metadata)
                .add("spec", Json.createObjectBuilder().add(rules, Json.createArrayBuilder().add(rule)))
                .build(), forms);
        assertThat(charged, is(List.of(owner)));
    }
}

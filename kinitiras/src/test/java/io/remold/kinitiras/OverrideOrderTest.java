package io.remold.kinitiras;

import io.remold.api.AdmissionOperation;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.Rejection;
import io.remold.engine.RuleOutcome;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/** Which override policies run, in which order, on what, through the engine: {@code managers.yaml}. */
class OverrideOrderTest {
    static Stream<Arguments> cases() {
        return Cases.of("managers.yaml");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void mutates(String name, JsonObject c) {
        Decision decision = engine(c.getJsonArray("policies").getValuesAs(JsonObject.class), options(c))
                .mutate(request(c));
        assertThat(decision.result(), is(c.get("want")));
        assertThat(decision.outcomes().stream().filter(RuleOutcome::matched).map(RuleOutcome::rule).toList(),
                is(strings(c, "outcomes")));
        assertThat(decision.rejections().stream().map(Rejection::toString).toList(), is(strings(c, "refused")));
    }

    /** The case's {@code options}, each setting off unless it says {@code true}. */
    private static KinitirasOptions options(JsonObject c) {
        JsonObject options = c.getOrDefault("options", JsonValue.EMPTY_JSON_OBJECT).asJsonObject();
        return new KinitirasOptions(options.getBoolean("crossNamespaceOverrides", false),
                options.getBoolean("webhookLabel", false));
    }

    static Engine engine(List<JsonObject> manifests, KinitirasOptions options) {
        var family = new KinitirasFamily(HttpAnswers.REFUSED, options);
        var policies = new TreeMap<String, Policy>();
        manifests.forEach(m -> {
            Policy policy = family.parse(m);
            policies.put(policy.id(), policy);
        });
        Engine.Builder builder = Engine.builder();
        family.compile(policies).stage().ifPresent(builder::stage);
        return builder.build();
    }

    static AdmissionRequest request(JsonObject c) {
        return new AdmissionRequest(AdmissionOperation.valueOf(c.getString("operation")), c.getString("namespace"),
                c.getOrDefault("object", JsonValue.NULL), c.getOrDefault("old", JsonValue.NULL), JsonValue.NULL,
                JsonValue.NULL, false);
    }

    private static List<String> strings(JsonObject c, String key) {
        return c.containsKey(key) ? c.getJsonArray(key).getValuesAs(JsonString.class).stream()
                .map(JsonString::getString).toList() : List.of();
    }
}

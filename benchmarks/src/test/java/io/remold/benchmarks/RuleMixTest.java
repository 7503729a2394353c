package io.remold.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRules;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.templating.ExternalData;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.util.LinkedHashMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The benchmark's premise: every generated rule compiles and exactly one patches the benchmark Deployment. */
class RuleMixTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 10, 100, 1000})
    void everyRuleCompilesAndOnlyTheMatchingRulePatches(int count) throws IOException {
        Engine engine = Engine.builder()
            .systemNamespace(RuleMix.SYSTEM_NAMESPACE)
            .rules(ModRules.parse(RuleMix.yaml(count), "rule-mix"))
            .build();
        assertThat(engine.ruleCount(), is(count));

        Decision decision = engine.mutate(new AdmissionRequest(AdmissionOperation.CREATE,
            RuleMix.TARGET_NAMESPACE, EngineBenchmark.deployment(), null, null, null, false));

        JsonObject result = decision.result().asJsonObject();
        assertThat(result.getJsonObject("metadata").getJsonObject("annotations").getString("remold.io/owner"),
            equalTo("payments"));
        assertThat(result.getValue("/spec/template/spec/containers/1/image").toString(),
            equalTo("\"mirror.example.com/envoyproxy/envoy:v1.31.2\""));
        assertThat(decision.rejections(), empty());
        assertThat(decision.outcomes().stream().filter(o -> o.applied() != null && !o.applied().isEmpty()).map(o -> o.rule()).toList(),
            contains("shop/checkout-hardening"));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void theExternalVariantMirrorsFromTheProviderOrKeepsTheImageWhenItFails(boolean answers) throws IOException {
        Engine engine = Engine.builder()
            .systemNamespace(RuleMix.SYSTEM_NAMESPACE)
            .rules(ModRules.parse(RuleMix.externalYaml(100), "rule-mix"))
            .externalData((provider, keys) -> {
                var result = new LinkedHashMap<String, ExternalData.Answer>();
                keys.forEach(key -> result.put(key, answers
                    ? ExternalData.Answer.of(Json.createValue("mirror.example.com/from-provider"), "test")
                    : ExternalData.Answer.failed("down", true, "test")));
                return result;
            })
            .build();

        Decision decision = engine.mutate(new AdmissionRequest(AdmissionOperation.CREATE,
            RuleMix.TARGET_NAMESPACE, EngineBenchmark.deployment(), null, null, null, false));

        assertThat(decision.result().asJsonObject().getValue("/spec/template/spec/containers/1/image").toString(),
            equalTo(answers ? "\"mirror.example.com/from-provider\"" : "\"docker.io/envoyproxy/envoy:v1.31.2\""));
        assertThat(decision.result().asJsonObject().getValue("/metadata/annotations/remold.io~1owner").toString(),
            equalTo("\"payments\""));
    }
}

package io.remold.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRules;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

/** Both halves of the comparison describe the same rules, and Remold's answers with the expected two operations. */
class ComparisonRulesTest {
    @ParameterizedTest
    @ValueSource(ints = {2, 10, 1000})
    void remoldRulesCompileAndPatchTheDeploymentTwice(int count) throws IOException {
        Engine engine = Engine.builder().rules(ModRules.parse(ComparisonRules.remold(count), "comparison")).build();
        assertThat(engine.ruleCount(), is(count));

        Decision decision = engine.mutate(new AdmissionRequest(AdmissionOperation.CREATE,
            RuleMix.TARGET_NAMESPACE, EngineBenchmark.deployment(), null, null, null, false));

        assertThat(decision.patch().stream().map(Object::toString).toList(), containsInAnyOrder(
            "{\"op\":\"add\",\"path\":\"/metadata/annotations/remold.io~1owner\",\"value\":\"payments\"}",
            "{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/1/image\",\"value\":\""
                + ComparisonRules.IMAGE + "\"}"));
    }

    @Test
    void gatekeeperMutatorsAreOnePerRuleWithDistinctNames() {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object doc : new Yaml().loadAll(ComparisonRules.gatekeeper(1000))) {
            @SuppressWarnings("unchecked") Map<String, Object> map = (Map<String, Object>) doc;
            docs.add(map);
        }
        assertThat(docs, hasSize(1000));
        assertThat(docs.stream().map(d -> d.get("apiVersion")).toList(),
            everyItem(equalTo("mutations.gatekeeper.sh/v1")));
        var names = new HashSet<>();
        docs.forEach(d -> names.add(((Map<?, ?>) d.get("metadata")).get("name")));
        assertThat(names.size(), is(1000));
        assertThat(((Map<?, ?>) docs.get(1).get("spec")).get("location"),
            equalTo("spec.template.spec.containers[name:envoy].image"));
    }

    @Test
    void fewerThanTheTwoPatchingRulesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ComparisonRules.remold(1));
    }
}

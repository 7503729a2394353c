package io.remold.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.remold.api.AdmissionOperation;
import io.remold.api.YamlJson;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.gatekeeper.mutators.Mutator;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every mutator of the mix is valid for Gatekeeper's rules, and the mix patches the benchmark Deployment. */
class GatekeeperMixTest {
    @ParameterizedTest
    @ValueSource(ints = {GatekeeperMix.VARIED, 100, 1000})
    void everyMutatorParsesWithADistinctId(int count) {
        List<Mutator> mutators = YamlJson.parse(GatekeeperMix.yaml(count), "mix").stream()
            .map(m -> Gatekeeper.parse((JsonObject) m)).toList();

        assertThat(mutators.size(), is(count));
        assertThat(new HashSet<>(mutators.stream().map(Mutator::id).toList()).size(), is(count));
        assertThat(Gatekeeper.conflicts(mutators).isEmpty(), is(true));
    }

    @ParameterizedTest
    @ValueSource(ints = {GatekeeperMix.VARIED, 1000})
    void theBenchmarkDeploymentGetsTheSamePatchWithAnyNumberOfFillers(int count) throws IOException {
        Decision decision = EngineBenchmark.mutators(count).mutate(new AdmissionRequest(AdmissionOperation.CREATE,
            RuleMix.TARGET_NAMESPACE, EngineBenchmark.deployment(), null, null, null, false));

        assertThat(decision.patch().stream().map(Object::toString).toList(), containsInAnyOrder(
            "{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/1/resources/limits/memory\","
                + "\"value\":\"128Mi\"}",
            "{\"op\":\"add\",\"path\":\"/metadata/labels/owner\",\"value\":\"platform\"}",
            "{\"op\":\"add\",\"path\":\"/metadata/annotations/remold.io~1name\",\"value\":\"checkout\"}"));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, GatekeeperMix.VARIED - 1})
    void fewerThanTheVariedMutatorsIsRefused(int count) {
        assertThrows(IllegalArgumentException.class, () -> GatekeeperMix.yaml(count));
    }
}

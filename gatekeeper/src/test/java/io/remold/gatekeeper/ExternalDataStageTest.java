package io.remold.gatekeeper;

import io.remold.api.AdmissionOperation;
import io.remold.api.YamlJson;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.RuleOutcome;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.templating.ExternalData;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

/** Assign's {@code externalData} in the engine: the request's view and user, one fetch, convergence, explain. */
class ExternalDataStageTest {
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata: {name: web, namespace: shop}
            spec:
              containers:
                - {name: app, image: 'nginx:1.27'}
                - {name: log, image: '%s'}
            """;

    /** Answers "digest-of-KEY" except for keys starting with "bad"; counts views and records fetches. */
    private static final class Digests implements ExternalData {
        final List<List<String>> fetches = new ArrayList<>();
        int views;

        @Override
        public Map<String, Answer> fetch(String provider, Collection<String> keys) {
            fetches.add(List.copyOf(keys));
            var answers = new LinkedHashMap<String, Answer>();
            keys.forEach(key -> answers.put(key, key.startsWith("bad") ? Answer.failed("no digest", false, "test")
                    : Answer.of(JSON.createValue("digest-of-" + key), "test")));
            return answers;
        }

        @Override
        public ExternalData forRequest() {
            views++;
            return ExternalData.recording(this);
        }
    }

    private static JsonObject yaml(String text) {
        return (JsonObject) YamlJson.parse(text, "test").getFirst();
    }

    private static Engine engine(Digests digests, String location, String externalData) {
        return Engine.builder().externalData(digests)
                .stage(Gatekeeper.stage(List.of(assign(location, externalData)))).build();
    }

    private static Mutator assign(String location, String externalData) {
        return Gatekeeper.parse(yaml("""
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata: {name: resolve}
                spec:
                  applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
                  location: '%s'
                  parameters: {assign: {externalData: %s}}
                """.formatted(location, externalData)));
    }

    private static AdmissionRequest request(String image, boolean explain) {
        return new AdmissionRequest(AdmissionOperation.CREATE, "shop", yaml(POD.formatted(image)), null, null, null,
                explain, "alice");
    }

    @Test
    void oneFetchPerMutationAndTheLoopConverges() {
        var digests = new Digests();
        Decision decision = engine(digests, "spec.containers[name: *].image", "{provider: digests}")
                .mutate(request("fluentd:2", true));
        assertThat(decision.patch(), equalTo(JSON.createReader(new StringReader("""
                [{"op":"replace","path":"/spec/containers/0/image","value":"digest-of-nginx:1.27"},
                 {"op":"replace","path":"/spec/containers/1/image","value":"digest-of-fluentd:2"}]""")).readValue()));
        assertThat(digests.fetches, contains(List.of("nginx:1.27", "fluentd:2")));
        assertThat(digests.views, is(1));
        RuleOutcome outcome = decision.outcomes().getFirst();
        assertThat(outcome.rule(), is("Assign/resolve"));
        assertThat(outcome.references(), contains("external digests \"nginx:1.27\": \"digest-of-nginx:1.27\" (test)",
                "external digests \"fluentd:2\": \"digest-of-fluentd:2\" (test)"));
    }

    @Test
    void usernameComesFromTheAdmissionRequest() {
        var digests = new Digests();
        Decision decision = engine(digests, "spec.serviceAccountName", "{provider: digests, dataSource: Username}")
                .mutate(request("fluentd:2", false));
        assertThat(decision.patch(), equalTo(JSON.createReader(new StringReader(
                "[{\"op\":\"add\",\"path\":\"/spec/serviceAccountName\",\"value\":\"digest-of-alice\"}]")).readValue()));
    }

    @Test
    void aFailedKeyUnderFailFailsTheWholeStageWithItsLines() {
        Decision decision = engine(new Digests(), "spec.containers[name: *].image", "{provider: digests}")
                .mutate(request("bad:1", true));
        assertThat(decision.patch(), equalTo(JsonValue.EMPTY_JSON_ARRAY));
        RuleOutcome outcome = decision.outcomes().getFirst();
        assertThat(outcome.rule(), is(Gatekeeper.SYSTEM));
        assertThat(outcome.error(), startsWith("mutation for mutator Assign.mutations.gatekeeper.sh /resolve failed"));
        assertThat(outcome.error(), endsWith(
                "externalData provider \"digests\" key \"bad:1\": no digest"));
        assertThat(outcome.references(), contains("external digests \"nginx:1.27\": \"digest-of-nginx:1.27\" (test)",
                "external digests \"bad:1\": failed: no digest (test)"));
    }
}

package io.remold.gatekeeper.mutators;

import io.remold.api.YamlJson;
import io.remold.gatekeeper.match.Source;
import io.remold.templating.ExternalData;
import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Assign's and AssignMetadata's {@code externalData}: each data source and failure policy, one fetch a mutation. */
class AssignExternalDataTest {
    private static final JsonProvider JSON = JsonProvider.provider();

    /** Answers "mirror/KEY" for every key but those starting with "bad", and records each fetch's keys. */
    private static final class Mirror implements ExternalData {
        final List<List<String>> fetches = new ArrayList<>();

        @Override
        public Map<String, Answer> fetch(String provider, Collection<String> keys) {
            fetches.add(List.copyOf(keys));
            var answers = new LinkedHashMap<String, Answer>();
            for (String key : keys) {
                answers.put(key, key.startsWith("bad") ? Answer.failed("unknown image", false, "test")
                        : Answer.of(JSON.createValue("mirror/" + key), "test"));
            }
            return answers;
        }
    }

    private static JsonObject yaml(String text) {
        return (JsonObject) YamlJson.parse(text, "test").getFirst();
    }

    private static Mutator mutator(String kind, String location, String externalData) {
        return Mutators.parse(yaml("""
                apiVersion: mutations.gatekeeper.sh/v1
                kind: %s
                metadata: {name: test}
                spec:
                  applyTo: [{groups: [""], versions: [v1], kinds: [Pod]}]
                  location: '%s'
                  parameters: {assign: {externalData: %s}}
                """.formatted(kind, location, externalData)));
    }

    private static final String POD = "spec: {containers: [{name: a, image: 'nginx:1'}, {name: b, image: '%s'},"
            + " {name: c}]}";

    private static Mutable request(String object, Mirror mirror) {
        return new Mutable(yaml(object), null, "alice", Source.Original, "CREATE",
                new Mutable.External(mirror));
    }

    @Test
    void valueAtLocationAsksForEveryLocationInOneFetchAndLeavesUnsetOnesAlone() throws MutationException {
        var mirror = new Mirror();
        JsonObject out = mutator("Assign", "spec.containers[name: *].image", "{provider: m}")
                .mutate(request(POD.formatted("redis:7"), mirror));
        assertEquals(yaml("spec: {containers: [{name: a, image: 'mirror/nginx:1'}, {name: b, image: 'mirror/redis:7'},"
                + " {name: c}]}"), out);
        assertEquals(List.of(List.of("nginx:1", "redis:7")), mirror.fetches);
    }

    @Test
    void nothingToResolveAsksNothingAndCreatesNothing() throws MutationException {
        var mirror = new Mirror();
        Mutable mutable = request("spec: {}", mirror);
        assertSame(mutable.object(), mutator("Assign", "spec.template.image", "{provider: m}").mutate(mutable));
        assertEquals(List.of(), mirror.fetches);
    }

    @Test
    void usernameSendsTheRequestingUser() throws MutationException {
        var mirror = new Mirror();
        JsonObject out = mutator("Assign", "spec.owner", "{provider: m, dataSource: Username}")
                .mutate(request("spec: {}", mirror));
        assertEquals(yaml("spec: {owner: mirror/alice}"), out);
        assertEquals(List.of(List.of("alice")), mirror.fetches);
    }

    @Test
    void assignMetadataAddsTheAnswerOnlyWhereTheLabelIsMissing() throws MutationException {
        var mirror = new Mirror();
        Mutator owner = Mutators.parse(yaml("""
                apiVersion: mutations.gatekeeper.sh/v1
                kind: AssignMetadata
                metadata: {name: owner}
                spec:
                  location: metadata.labels.owner
                  parameters: {assign: {externalData: {provider: m, dataSource: Username}}}
                """));
        assertEquals(yaml("metadata: {labels: {owner: mirror/alice}}"),
                owner.mutate(request("metadata: {}", mirror)));
        Mutable labelled = request("metadata: {labels: {owner: bob}}", mirror);
        assertSame(labelled.object(), owner.mutate(labelled));
        assertEquals(List.of(List.of("alice")), mirror.fetches);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            Ignore                     | {name: b, image: 'bad:1'}
            'UseDefault, default: none'| {name: b, image: none}
            """)
    void aFailedKeyFollowsTheFailurePolicy(String policy, String container) throws MutationException {
        JsonObject out = mutator("Assign", "spec.containers[name: *].image", "{provider: m, failurePolicy: "
                + policy + "}").mutate(request(POD.formatted("bad:1"), new Mirror()));
        assertEquals(yaml("spec: {containers: [{name: a, image: 'mirror/nginx:1'}, " + container + ", {name: c}]}"),
                out);
    }

    @Test
    void anIgnoredFailureCreatesNothing() throws MutationException {
        Mutable mutable = new Mutable(yaml("spec: {}"), null, "bad-user", Source.Original, "CREATE",
                new Mutable.External(new Mirror()));
        assertSame(mutable.object(), mutator("Assign", "spec.owner.name",
                "{provider: m, dataSource: Username, failurePolicy: Ignore}").mutate(mutable));
    }

    @Test
    void aFailedKeyFailsTheMutationByDefault() {
        var e = assertThrows(MutationException.class, () -> mutator("Assign", "spec.containers[name: *].image",
                "{provider: m}").mutate(request(POD.formatted("bad:1"), new Mirror())));
        assertEquals("externalData provider \"m\" key \"bad:1\": unknown image", e.getMessage());
    }

    @Test
    void aLaterPassLeavesWhatTheMutatorAssignedAlone() throws MutationException {
        var mirror = new Mirror();
        Mutator assign = mutator("Assign", "spec.containers[name: *].image", "{provider: m}");
        Mutable first = request(POD.formatted("redis:7"), mirror);
        JsonObject once = assign.mutate(first);
        assertSame(once, assign.mutate(first.withObject(once)));
        assertEquals(1, mirror.fetches.size());
    }
}

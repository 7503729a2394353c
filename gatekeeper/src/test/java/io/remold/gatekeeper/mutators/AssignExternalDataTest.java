package io.remold.gatekeeper.mutators;

import io.remold.api.YamlJson;
import io.remold.gatekeeper.match.Source;
import io.remold.templating.ExternalData;
import io.remold.templating.ExternalData.Answer;
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
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Assign's and AssignMetadata's {@code externalData}: each data source and failure policy, one fetch a mutation. */
class AssignExternalDataTest {
    private static final JsonProvider JSON = JsonProvider.provider();

    /**
     * Answers each key with {@code answer} (by default "mirror/KEY" for every key but those starting with "bad",
     * which fail), and records each fetch's keys.
     */
    private static final class Mirror implements ExternalData {
        final List<List<String>> fetches = new ArrayList<>();
        private final Function<String, Answer> answer;

        Mirror(Function<String, Answer> answer) {
            this.answer = answer;
        }

        Mirror() {
            this(key -> key.startsWith("bad") ? Answer.failed("unknown image", false, "test")
                    : Answer.of(JSON.createValue("mirror/" + key), "test"));
        }

        @Override
        public Map<String, Answer> fetch(String provider, Collection<String> keys) {
            fetches.add(List.copyOf(keys));
            var answers = new LinkedHashMap<String, Answer>();
            keys.forEach(key -> answers.put(key, answer.apply(key)));
            return answers;
        }
    }

    private static JsonObject yaml(String text) {
        return (JsonObject) YamlJson.parse(text, "test").getFirst();
    }

    private static Mutator mutator(String kind, String location, String externalData) {
        return mutator(kind, location, externalData, "[]");
    }

    private static Mutator mutator(String kind, String location, String externalData, String pathTests) {
        return Mutators.parse(yaml("""
                apiVersion: mutations.gatekeeper.sh/v1
                kind: %s
                metadata: {name: test}
                spec:
                  applyTo: [{groups: [""], versions: [v1], kinds: [Pod]}]
                  location: '%s'
                  parameters: {assign: {externalData: %s}, pathTests: %s}
                """.formatted(kind, location, externalData, pathTests)));
    }

    private static final String MUST_EXIST = "[{subPath: 'spec.containers[name: *].image', condition: MustExist}]";

    private static final String POD = "spec: {containers: [{name: a, image: 'nginx:1'}, {name: b, image: '%s'},"
            + " {name: c}]}";

    private static Mutable request(String object, Mirror mirror) {
        return new Mutable(yaml(object), null, "alice", Source.Original, "CREATE",
                new Mutable.External(mirror));
    }

    @Test
    void valueAtLocationAsksForEveryLocationInOneFetchAndAMissingValueIsTheEmptyKey() throws MutationException {
        var mirror = new Mirror();
        JsonObject out = mutator("Assign", "spec.containers[name: *].image", "{provider: m}")
                .mutate(request(POD.formatted("redis:7"), mirror));
        assertEquals(yaml("spec: {containers: [{name: a, image: 'mirror/nginx:1'}, {name: b, image: 'mirror/redis:7'},"
                + " {name: c, image: mirror/}]}"), out);
        assertEquals(List.of(List.of("nginx:1", "redis:7", "")), mirror.fetches);
    }

    @Test
    void mustExistLeavesMissingValuesAloneAndNothingToResolveAsksNothing() throws MutationException {
        var mirror = new Mirror();
        assertEquals(yaml("spec: {containers: [{name: a, image: 'mirror/nginx:1'}, {name: b, image: 'mirror/redis:7'},"
                + " {name: c}]}"), mutator("Assign", "spec.containers[name: *].image", "{provider: m}", MUST_EXIST)
                .mutate(request(POD.formatted("redis:7"), mirror)));
        Mutable empty = request("spec: {containers: [{name: c}]}", mirror);
        assertSame(empty.object(), mutator("Assign", "spec.containers[name: *].image", "{provider: m}", MUST_EXIST)
                .mutate(empty));
        assertEquals(List.of(List.of("nginx:1", "redis:7")), mirror.fetches);
    }

    @Test
    void anAnswerEqualToAnotherLocationsValueStillLetsThatLocationBeResolved() throws MutationException {
        var mirror = new Mirror(Map.of("app:1", Answer.of(JSON.createValue("app:2"), "test"),
                "app:2", Answer.of(JSON.createValue("app:3"), "test"))::get);
        Mutator assign = mutator("Assign", "spec.containers[name: *].image", "{provider: m}");
        Mutable first = request("spec: {containers: [{name: a, image: 'app:1'}, {name: b, image: 'app:2'}]}", mirror);
        JsonObject once = assign.mutate(first);
        assertEquals(yaml("spec: {containers: [{name: a, image: 'app:2'}, {name: b, image: 'app:3'}]}"), once);
        assertSame(once, assign.mutate(first.withObject(once)));
        assertEquals(List.of(List.of("app:1", "app:2")), mirror.fetches);
    }

    @Test
    void usernameSendsTheRequestingUserWhereNothingIsSetElseTheValueThere() throws MutationException {
        var mirror = new Mirror();
        Mutator owner = mutator("Assign", "spec.owner", "{provider: m, dataSource: Username}");
        assertEquals(yaml("spec: {owner: mirror/alice}"), owner.mutate(request("spec: {}", mirror)));
        assertEquals(yaml("spec: {owner: mirror/bob}"), owner.mutate(request("spec: {owner: bob}", mirror)));
        assertEquals(List.of(List.of("alice"), List.of("bob")), mirror.fetches);
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
                + policy + "}", MUST_EXIST).mutate(request(POD.formatted("bad:1"), new Mirror()));
        assertEquals(yaml("spec: {containers: [{name: a, image: 'mirror/nginx:1'}, " + container + ", {name: c}]}"),
                out);
    }

    @Test
    void anIgnoredFailureAssignsTheKeyEvenWhereNothingWasSet() throws MutationException {
        Mutable mutable = new Mutable(yaml("spec: {}"), null, "bad-user", Source.Original, "CREATE",
                new Mutable.External(new Mirror()));
        assertEquals(yaml("spec: {owner: {name: bad-user}}"), mutator("Assign", "spec.owner.name",
                "{provider: m, dataSource: Username, failurePolicy: Ignore}").mutate(mutable));
    }

    @Test
    void anAnswerThatIsNotAStringFailsAsTheFailurePolicySays() throws MutationException {
        Function<String, Answer> number = key -> Answer.of(JSON.createValue(7), "test");
        var e = assertThrows(MutationException.class, () -> mutator("Assign", "spec.image", "{provider: m}")
                .mutate(request("spec: {image: 'nginx:1'}", new Mirror(number))));
        assertEquals("externalData provider \"m\" key \"nginx:1\": the answer must be a string, not 7",
                e.getMessage());
        assertEquals(yaml("spec: {image: 'nginx:1'}"), mutator("Assign", "spec.image",
                "{provider: m, failurePolicy: Ignore}").mutate(request("spec: {image: 'nginx:1'}",
                new Mirror(number))));
    }

    @Test
    void aValueThatIsNotAStringFailsTheMutationWhateverThePolicy() {
        var mirror = new Mirror();
        var e = assertThrows(MutationException.class, () -> mutator("Assign", "spec.replicas",
                "{provider: m, failurePolicy: Ignore}").mutate(request("spec: {replicas: 3}", mirror)));
        assertEquals("externalData provider \"m\": the value at the location must be a string to be sent as a key,"
                + " not 3", e.getMessage());
        assertEquals(List.of(), mirror.fetches);
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

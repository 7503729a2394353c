package io.remold.gatekeeper.mutators;

import io.remold.api.YamlJson;
import io.remold.gatekeeper.match.Source;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading manifests, and the behaviour of AssignMetadata, ModifySet and AssignImage the corpus does not pin. */
class MutatorsTest {
    private static final String POD = "{apiVersion: v1, kind: Pod, metadata: {name: p, labels: {a: b}},"
            + " spec: {containers: [{name: c, image: nginx, args: [x]}]}}";

    private static JsonObject yaml(String text) {
        return YamlJson.parse(text, "test").getFirst().asJsonObject();
    }

    /** A manifest of {@code kind} with this spec (flow YAML), bound to Pods unless it has its own applyTo. */
    private static JsonObject manifest(String kind, String spec) {
        String applyTo = spec.contains("applyTo:") ? "" : "applyTo: [{groups: [''], versions: [v1], kinds: [Pod]}], ";
        return yaml("{apiVersion: mutations.gatekeeper.sh/v1beta1, kind: " + kind + ", metadata: {name: m},"
                + " spec: {" + applyTo + spec + "}}");
    }

    private static JsonObject mutate(Mutator mutator, JsonObject object) throws MutationException {
        return mutator.mutate(new Mutable(object, null, "", Source.All, "CREATE"));
    }

    @ParameterizedTest(name = "{0} {1} refused at {2}")
    @CsvSource(delimiter = '|', textBlock = """
            AssignImage    | location: 'spec.containers[name: c].name', parameters: {assignTag: ':v'}     | spec.location            | changing the item key is not allowed
            AssignImage    | location: spec.image, parameters: {assignTag: ':v'}, applyTo: []           | spec.applyTo             | applyTo required for AssignImage mutator m
            AssignImage    | location: spec.image, parameters: {assignTag: 3}                           | spec.parameters.assignTag | must be a string
            AssignMetadata | location: metadata.labels, parameters: {assign: {value: x}}                | spec.location            | invalid location for assignmetadata m: metadata.labels
            AssignMetadata | location: metadata.labels.a.b, parameters: {assign: {value: x}}            | spec.location            | invalid location for assignmetadata m
            AssignMetadata | location: 'metadata.labels[k: v]', parameters: {assign: {value: x}}       | spec.location            | invalid location for assignmetadata m
            AssignMetadata | location: metadata.labels.a, parameters: {assign: {value: 1}}              | spec.parameters.assign.value | must be a string for AssignMetadata "m"
            AssignMetadata | location: metadata.labels.a, parameters: {assign: {externalData: {provider: p}}} | spec.parameters.assign.externalData.dataSource | only username data source
            ModifySet      | location: metadata.finalizers, parameters: {values: {fromList: [a]}}       | spec.location            | modifyset m can't change metadata
            ModifySet      | location: 'spec.containers[name: c]', parameters: {values: {fromList: [a]}} | spec.location           | cannot be a keyed list
            ModifySet      | location: spec.args, parameters: {operation: add}                          | spec.parameters.operation | unrecognized operation for modifyset: add
            ModifySet      | location: spec.args, parameters: {values: {fromList: a}}                   | spec.parameters.values.fromList | must be a list
            ModifySet      | location: 'spec..args', parameters: {}                                     | spec.location            | invalid location format
            ModifySet      | location: spec.args, applyTo: [{groups: [''], versions: [v1], kinds: [Pod], operations: [DELETE]}] | spec.applyTo[0].operations | DELETE
            """)
    void refuses(String kind, String spec, String field, String reason) {
        var e = assertThrows(InvalidMutatorException.class, () -> Mutators.parse(manifest(kind, spec)));
        assertTrue(e.field().startsWith(field), e.getMessage());
        assertTrue(e.reason().contains(reason), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            {apiVersion: mutations.gatekeeper.sh/v2, kind: Assign}           | apiVersion
            {apiVersion: other.io/v1, kind: Assign}                          | apiVersion
            {apiVersion: mutations.gatekeeper.sh/v1, kind: ModifyImage}      | kind
            {apiVersion: mutations.gatekeeper.sh/v1, kind: Assign, metadata: {name: 7}} | metadata.name
            """)
    void refusesWhatIsNoMutator(String manifest, String field) {
        assertEquals(field, assertThrows(InvalidMutatorException.class, () -> Mutators.parse(yaml(manifest))).field());
    }

    @Test
    void namesAreMeasuredInBytes() {
        String name = "é".repeat(32); // 32 characters, 64 bytes
        var e = assertThrows(InvalidMutatorException.class, () -> Mutators.parse(yaml(
                "{apiVersion: mutations.gatekeeper.sh/v1, kind: ModifySet, metadata: {name: " + name + "}}")));
        assertEquals("maximum name length is 63 characters", e.reason());
    }

    @Test
    void assignMetadataIgnoresApplyToAndHasNoSchema() throws Exception {
        Mutator mutator = Mutators.parse(manifest("AssignMetadata",
                "location: 'metadata.annotations.\"x/y\"', parameters: {assign: {value: v}}"));
        assertTrue(mutator.schemaBindings().isEmpty());
        assertTrue(mutator.matches(new Mutable(yaml("{apiVersion: apps/v1, kind: Deployment}"), null, "",
                Source.All, "CREATE")));
        JsonObject out = mutate(mutator, yaml(POD));
        assertEquals("v", out.getJsonObject("metadata").getJsonObject("annotations").getString("x/y"));
    }

    @Test
    void assignMetadataLeavesAnExistingKeyAndItsObjectAlone() throws Exception {
        Mutator mutator = Mutators.parse(manifest("AssignMetadata",
                "location: metadata.labels.a, parameters: {assign: {value: changed}}"));
        JsonObject pod = yaml(POD);
        assertSame(pod, mutate(mutator, pod));
    }

    @Test
    void assignImageRewritesOnlyStringsAndConverges() throws Exception {
        Mutator mutator = Mutators.parse(manifest("AssignImage",
                "location: 'spec.containers[name: *].image', parameters: {assignDomain: r.io, assignTag: ':1'}"));
        JsonObject once = mutate(mutator, yaml(POD));
        assertEquals("r.io/nginx:1", once.getJsonObject("spec").getJsonArray("containers").getJsonObject(0)
                .getString("image"));
        assertSame(once, mutate(mutator, once));
        var e = assertThrows(MutationException.class, () -> mutate(mutator,
                yaml("{spec: {containers: [{name: c, image: 5}]}}")));
        assertTrue(e.getMessage().contains("expected value at AssignImage location to be a string"), e.getMessage());
    }

    @Test
    void assignImageSetsAMissingImage() throws Exception {
        Mutator mutator = Mutators.parse(manifest("AssignImage",
                "location: 'spec.containers[name: d].image', parameters: {assignPath: app}"));
        JsonObject out = mutate(mutator, yaml(POD));
        assertEquals(yaml("{name: d, image: app}"), out.getJsonObject("spec").getJsonArray("containers").get(1));
    }

    @Test
    void modifySetMergesAndPrunesAtItsLocation() throws Exception {
        Mutator merge = Mutators.parse(manifest("ModifySet",
                "location: 'spec.containers[name: c].args', parameters: {values: {fromList: [x, y]}}"));
        Mutator prune = Mutators.parse(manifest("ModifySet",
                "location: 'spec.containers[name: c].args', parameters: {operation: prune, values: {fromList: [x]}}"));
        JsonObject merged = mutate(merge, yaml(POD));
        assertEquals(yaml("{a: [x, y]}").get("a"),
                merged.getJsonObject("spec").getJsonArray("containers").getJsonObject(0).get("args"));
        assertSame(merged, mutate(merge, merged));
        JsonObject pruned = mutate(prune, merged);
        assertEquals(yaml("{a: [y]}").get("a"),
                pruned.getJsonObject("spec").getJsonArray("containers").getJsonObject(0).get("args"));
    }
}

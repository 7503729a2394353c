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

/** Assign's manifest checks and behaviour the corpus does not pin. */
class AssignTest {
    private static JsonObject yaml(String text) {
        return (JsonObject) YamlJson.parse(text, "test").getFirst();
    }

    /** An Assign for Pods with the given location and {@code parameters} (flow YAML). */
    private static Mutator assign(String location, String parameters) {
        return Mutators.parse(yaml("""
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata: {name: test}
                spec:
                  applyTo: [{groups: [""], versions: [v1], kinds: [Pod]}]
                  location: '%s'
                  parameters: %s
                """.formatted(location, parameters)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            metadata.labels.x        | {assign: {value: x}}                 | spec.location | assign test can't change metadata
            spec.c[name: a].name     | {assign: {value: x}}                 | spec.location | changing the item key is not allowed
            spec.c[name: *]          | {assign: {value: {name: a}}}         | spec.location | can't append to a globbed list
            spec.c[name: a]          | {assign: {value: a}}                 | spec.parameters.assign.value | only objects can be added to keyed lists
            spec.c[name: a]          | {assign: {value: {name: b}}}         | spec.parameters.assign.value | adding object to list with different key name
            spec.c[port: 80]         | {assign: {value: {port: '80'}}}      | spec.parameters.assign.value | adding object to list with different key port
            spec.c[name: a]          | {assign: {fromMetadata: {field: name}}} | spec.parameters.assign.fromMetadata | cannot assign a metadata field to a list
            spec.c[name: a]          | {assign: {externalData: {provider: p}}} | spec.parameters.assign.externalData | cannot assign external data response to a list
            spec.x                   | {}                                   | spec.parameters.assign | invalid assign field
            spec.x                   | {assign: {value: null}}              | spec.parameters.assign | invalid assign field
            spec.x                   | {assign: {value: 1, fromMetadata: {field: name}}} | spec.parameters.assign | invalid assign field
            spec.x                   | {assign: {fromMetadata: {field: uid}}} | spec.parameters.assign.fromMetadata.field | invalid fromMetadata field
            spec.x                   | {assign: {externalData: {}}}         | spec.parameters.assign.externalData.provider | required
            spec.x                   | {assign: {externalData: {provider: p, failurePolicy: UseDefault}}} | spec.parameters.assign.externalData.default | `default` must not be empty
            spec.x                   | {assign: {externalData: {provider: p, dataSource: Body}}} | spec.parameters.assign.externalData.dataSource | unsupported value
            spec.x                   | {assign: {value: 1}, pathTests: [{subPath: spec.y, condition: MustExist}]} | spec.parameters.pathTests[0].subPath | all subpaths must be a prefix
            spec.x                   | {assign: {value: 1}, pathTests: [{subPath: spec, condition: Maybe}]} | spec.parameters.pathTests[0].condition | unsupported value
            spec.x                   | {assign: {value: 1}, pathTests: [{subPath: 'spec[', condition: MustExist}]} | spec.parameters.pathTests[0].subPath | problem parsing sub path
            spec.x.y                 | {assign: {value: 1}, pathTests: [{subPath: spec.x.y, condition: MustNotExist}, {subPath: spec, condition: MustExist}]} | spec.parameters.pathTests[1] | conflicting path test conditions
            """)
    void refuses(String location, String parameters, String field, String reason) {
        var e = assertThrows(InvalidMutatorException.class, () -> assign(location, parameters));
        assertEquals(field, e.field(), e.getMessage());
        assertTrue(e.reason().contains(reason), e.getMessage());
    }

    @Test
    void acceptsARequiredParentListedBeforeAForbiddenChild() {
        assign("spec.x.y", "{assign: {value: 1}, pathTests: [{subPath: spec, condition: MustExist},"
                + " {subPath: spec.x.y, condition: MustNotExist}]}");
    }

    @Test
    void aPathTestWithoutConditionLetsNothingThroughAsInGatekeeper() throws MutationException {
        Mutator mutator = assign("spec.x", "{assign: {value: 1}, pathTests: [{subPath: spec.x}]}");
        for (String pod : new String[] {"spec: {}", "spec: {x: 0}"}) {
            JsonObject object = yaml(pod);
            assertSame(object, mutator.mutate(new Mutable(object, null, null, Source.All, "")));
        }
    }

    @Test
    void withoutProvidersExternalDataFailsAsItsPolicySays() {
        Mutator mutator = assign("spec.x", "{assign: {externalData: {provider: p}}}");
        assertTrue(mutator.usesExternalData());
        var e = assertThrows(MutationException.class,
                () -> mutator.mutate(new Mutable(yaml("spec: {x: a}"), null, null, Source.All, "")));
        assertEquals("externalData provider \"p\" key \"a\": no external data provider \"p\" here", e.getMessage());
    }

    @Test
    void takesNameAndNamespaceFromTheObject() throws MutationException {
        JsonObject pod = yaml("metadata: {name: web, namespace: prod}\nspec: {}");
        JsonObject out = assign("spec.owner", "{assign: {fromMetadata: {field: namespace}}}")
                .mutate(new Mutable(pod, null, null, Source.All, ""));
        assertEquals("prod", out.getJsonObject("spec").getString("owner"));
    }

    @Test
    void replacesAWholeElementKeepingItsIntegerKey() throws MutationException {
        JsonObject pod = yaml("spec: {c: [{port: 80, name: a}, {port: 81}]}");
        JsonObject out = assign("spec.c[port: 80]", "{assign: {value: {port: 80, name: b}}}")
                .mutate(new Mutable(pod, null, null, Source.All, ""));
        assertEquals(yaml("spec: {c: [{port: 80, name: b}, {port: 81}]}"), out);
    }
}

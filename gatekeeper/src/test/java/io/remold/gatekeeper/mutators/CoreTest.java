package io.remold.gatekeeper.mutators;

import io.remold.api.YamlJson;
import io.remold.gatekeeper.path.Location;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The walk of {@link Core} where the corpus does not pin it: identity, creation, typed keys, errors. */
class CoreTest {
    private static final String POD = """
            spec:
              containers:
              - name: a
                ports: [{containerPort: 80, name: http}]
              - name: b
              empty: []
            """;

    private static JsonObject yaml(String text) {
        return (JsonObject) YamlJson.parse(text, "test").getFirst();
    }

    private static JsonValue value(String flowYaml) {
        return yaml("v: " + flowYaml).get("v");
    }

    private static JsonObject assign(String location, String flowYaml, JsonObject object) throws MutationException {
        var setter = new Assign.ValueSetter(value(flowYaml));
        return Core.mutate(Location.parse(location), PathTests.NONE, setter, object);
    }

    @ParameterizedTest(name = "{0} = {1} changes nothing")
    @CsvSource(delimiter = '|', textBlock = """
            spec.containers[name: a].name          | a
            spec.containers[name: a].ports[name: http].containerPort | 80
            spec.containers[name: *].ports[name: *].name | http
            spec.empty[name: *].image              | x
            spec.missing[name: *].image            | x
            spec.containers[name: a]               | {name: a, ports: [{containerPort: 80, name: http}]}
            """)
    void returnsTheSameInstanceWhenNothingChanges(String location, String flowYaml) throws MutationException {
        JsonObject pod = yaml(POD);
        assertSame(pod, assign(location, flowYaml, pod));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', textBlock = """
            spec.containers[name: c].image         | x  | {name: c, image: x}
            spec.containers[name: a].ports[containerPort: "80"].name | p | {containerPort: '80', name: p}
            spec.containers[name: a].ports[containerPort: 443].name | p | {containerPort: 443, name: p}
            spec.containers[name: d]               | {name: d, image: y} | {name: d, image: y}
            """)
    void appendsAMissingElementWithItsTypedKey(String location, String flowYaml, String element)
            throws MutationException {
        JsonObject pod = yaml(POD);
        JsonObject out = assign(location, flowYaml, pod);
        String list = location.contains("ports") ? "/spec/containers/0/ports" : "/spec/containers";
        var items = out.getValue(list).asJsonArray();
        assertEquals(value(element), items.getLast());
        assertEquals(yaml(POD), pod, "the input is unchanged");
    }

    @Test
    void createsMissingParentsAndKeyedElementsOnTheWay() throws MutationException {
        JsonObject out = assign("spec.volumes[name: data].emptyDir.medium", "Memory", yaml("spec: {}"));
        assertEquals(yaml("spec: {volumes: [{name: data, emptyDir: {medium: Memory}}]}"), out);
    }

    @Test
    void keepsCreatedParentsWhenTheSetterLeavesTheFieldAbsent() throws MutationException {
        // Gatekeeper counts reaching the end as a mutation, e.g. ModifySet's prune of an absent list.
        Setter leaveAbsent = current -> current;
        JsonObject out = Core.mutate(Location.parse("spec.a.b"), PathTests.NONE, leaveAbsent, yaml("spec: {}"));
        assertEquals(yaml("spec: {a: {}}"), out);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            spec.containers.name                   | needs an object at spec.containers but found a list
            spec[name: x].image                    | needs a list at spec but found an object
            spec.containers[name: *]               | can not be a glob
            spec.containers[name: a]               | key value of replaced object must not change
            """)
    void reportsShapeErrors(String location, String reason) {
        var e = assertThrows(MutationException.class, () -> assign(location, "{name: z}", yaml(POD)));
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    @Test
    void refusesAnEmptyLocation() {
        assertThrows(MutationException.class, () -> assign("", "x", yaml(POD)));
    }
}

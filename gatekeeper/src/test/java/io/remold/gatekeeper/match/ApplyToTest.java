package io.remold.gatekeeper.match;

import io.remold.api.YamlJson;
import jakarta.json.JsonArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** applyTo behaviour the corpus does not pin: bindings per entry, validation fields. */
class ApplyToTest {
    private static JsonArray json(String yaml) {
        return (JsonArray) YamlJson.parse(yaml, "test").getFirst();
    }

    @Test
    void bindingsAreDistinctSortedAndKeepEachEntrysOperations() {
        List<ApplyTo> applyTo = ApplyTo.parseList(json("""
                - {groups: [""], versions: [v1], kinds: [Pod, ConfigMap], operations: [UPDATE]}
                - {groups: [""], versions: [v1], kinds: [Pod], operations: [CREATE]}
                - {groups: [a.b, a], versions: [v1], kinds: [X], operations: ["*"]}
                """));
        var pod = new GroupVersionKind("", "v1", "Pod");
        var configMap = new GroupVersionKind("", "v1", "ConfigMap");
        // Sorted as Go prints kinds ("a.b/v1, Kind=X" < "a/v1, Kind=X"), each with CREATE before UPDATE.
        assertEquals(List.of(new ApplyTo.Binding(configMap, "UPDATE"), new ApplyTo.Binding(pod, "CREATE"),
                new ApplyTo.Binding(pod, "UPDATE"),
                new ApplyTo.Binding(new GroupVersionKind("a.b", "v1", "X"), "CREATE"),
                new ApplyTo.Binding(new GroupVersionKind("a.b", "v1", "X"), "UPDATE"),
                new ApplyTo.Binding(new GroupVersionKind("a", "v1", "X"), "CREATE"),
                new ApplyTo.Binding(new GroupVersionKind("a", "v1", "X"), "UPDATE")), ApplyTo.bindings(applyTo));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[{operations: [DELETE, DELETE]}] | [0].operations[0]"
                + " | invalid operation \"DELETE\" in applyTo[0].operations: must be one of CREATE, UPDATE, *; "
                + "duplicate operation \"DELETE\" in applyTo[0].operations; invalid operation \"DELETE\" in "
                + "applyTo[0].operations: must be one of CREATE, UPDATE, *",
        "[{operations: ['*', CREATE]}] | [0].operations"
                + " | wildcard \"*\" in applyTo[0].operations must not be combined with other operations",
        "[{groups: [1]}] | [0].groups[0] | must be a string",
        "[3] | [0] | must be an object"})
    void invalidApplyTo(String applyTo, String field, String reason) {
        var e = assertThrows(InvalidMatchException.class, () -> ApplyTo.parseList(json(applyTo)));
        assertEquals(field, e.field());
        assertEquals(reason, e.reason());
    }
}

package io.remold.gatekeeper.mutators;

import io.remold.api.YamlJson;
import jakarta.json.JsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** ModifySet behaviour the corpus does not pin. */
class ModifySetTest {
    private static JsonValue json(String text) {
        return YamlJson.parse(text, "test").getFirst();
    }

    private static List<JsonValue> list(String text) {
        return List.copyOf(json(text).asJsonArray());
    }

    @ParameterizedTest(name = "{0} {1} into {2} gives {3}")
    @CsvSource(delimiter = '|', textBlock = """
            MERGE | [b, b]       | [a]            | [a, b]
            MERGE | [b, b]       | <absent>       | [b, b]
            MERGE | []           | <absent>       | []
            MERGE | [1]          | [1.0]          | [1.0, 1]
            MERGE | [{a: [1]}]   | [{a: [1]}]     | [{a: [1]}]
            PRUNE | [a]          | <absent>       | <absent>
            PRUNE | [1]          | [1, 1.0, '1']  | [1.0, '1']
            PRUNE | [{a: 1}]     | [{a: 1, b: 2}] | [{a: 1, b: 2}]
            """)
    void setOperation(String operation, String values, String existing, String expected) throws Exception {
        JsonValue current = existing.equals("<absent>") ? null : json(existing);
        JsonValue result = ModifySet.Operation.valueOf(operation).apply(current, list(values));
        if (expected.equals("<absent>")) {
            assertNull(result);
        } else {
            assertEquals(json(expected), result);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            MERGE | [a]
            PRUNE | [z]
            """)
    void unchangedListIsTheSameInstance(String operation, String values) throws Exception {
        JsonValue current = json("[a, b]");
        assertSame(current, ModifySet.Operation.valueOf(operation).apply(current, list(values)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            MERGE
            PRUNE
            """)
    void noFromListLeavesAnAbsentFieldAbsent(String operation) throws Exception {
        assertNull(ModifySet.Operation.valueOf(operation).apply(null, null));
    }
}

package io.remold.engine;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.remold.api.PatchOp;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;

import static io.remold.engine.TestJson.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * Fuzzes the patch applier with generated operations (op, pointer, value) on a few documents: it refuses only with
 * {@link JsonPatcher.PatchException}, and the engine's diff of the result, applied to the original, gives the result
 * (the server answers with that diff).
 */
class JsonPatcherFuzzTest {
    private static final List<JsonValue> DOCUMENTS = List.of(
            json("{'metadata': {'name': 'web', 'labels': {'a/b': 'x', '~': 'y'}}, 'spec': {'containers': "
                    + "[{'name': 'app', 'ports': [{'containerPort': 80}]}, {'name': 'side'}], 'replicas': 1}}"),
            json("[1, [2, 3], {'a': []}, null]"), json("{}"), json("'text'"), JsonValue.NULL);
    private static final List<JsonValue> VALUES = List.of(json("1"), json("'s'"), json("{'x': [1]}"), json("[]"),
            JsonValue.NULL, JsonValue.TRUE);

    @FuzzTest
    void apply(FuzzedDataProvider data) throws JsonPatcher.PatchException {
        JsonValue document = data.pickValue(DOCUMENTS);
        var operations = new ArrayList<JsonPatcher.Operation>();
        for (int n = data.consumeInt(1, 4); n > 0; n--) {
            PatchOp op = data.pickValue(PatchOp.values());
            JsonValue value = op == PatchOp.remove ? null : data.pickValue(VALUES);
            operations.add(new JsonPatcher.Operation(op, data.consumeString(40), value));
        }
        JsonValue result;
        try {
            result = JsonPatcher.apply(document, operations);
        } catch (JsonPatcher.PatchException e) {
            return;
        }
        assertThat(JsonPatcher.apply(document, JsonDiff.diff(document, result)), equalTo(result));
    }
}

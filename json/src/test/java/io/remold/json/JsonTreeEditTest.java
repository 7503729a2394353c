package io.remold.json;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Copy-on-write edits on compact and on Parsson containers: results, order, sharing and the inputs untouched. */
class JsonTreeEditTest {
    private static final JsonProvider PARSSON = JsonProvider.provider();
    private static final String OBJECT = "{\"a\":1,\"b\":{\"c\":2},\"d\":[1,2,3]}";

    /** The same document as a compact tree and as a Parsson tree: every edit must treat both alike. */
    private static List<JsonObject> both() {
        try (var reader = PARSSON.createReader(new StringReader(OBJECT))) {
            return List.of((JsonObject) JsonTree.parse(OBJECT.getBytes(StandardCharsets.UTF_8)),
                    reader.readObject());
        }
    }

    @Test
    void objectEdits() {
        for (JsonObject o : both()) {
            assertThat(JsonTree.with(o, "a", JsonValue.TRUE).toString(),
                    equalTo("{\"a\":true,\"b\":{\"c\":2},\"d\":[1,2,3]}"));
            assertThat(JsonTree.with(o, "e", JsonValue.NULL).toString(),
                    equalTo("{\"a\":1,\"b\":{\"c\":2},\"d\":[1,2,3],\"e\":null}"));
            assertThat(JsonTree.without(o, "b").toString(), equalTo("{\"a\":1,\"d\":[1,2,3]}"));
            assertThat(JsonTree.without(o, "d").toString(), equalTo("{\"a\":1,\"b\":{\"c\":2}}"));
            assertThat(JsonTree.without(o, "missing"), equalTo(o));
            assertThat(JsonTree.with(o, "a", JsonValue.TRUE).get("b"), sameInstance(o.get("b")));
            assertThat(o.toString(), equalTo(OBJECT));
        }
    }

    @Test
    void arrayEdits() {
        for (JsonObject o : both()) {
            JsonArray d = o.getJsonArray("d");
            assertThat(JsonTree.with(d, 1, JsonValue.NULL).toString(), equalTo("[1,null,3]"));
            assertThat(JsonTree.inserted(d, 0, JsonValue.TRUE).toString(), equalTo("[true,1,2,3]"));
            assertThat(JsonTree.inserted(d, 3, JsonValue.TRUE).toString(), equalTo("[1,2,3,true]"));
            assertThat(JsonTree.without(d, 0).toString(), equalTo("[2,3]"));
            assertThat(JsonTree.without(d, 2).toString(), equalTo("[1,2]"));
            assertThat(JsonTree.with(d, 1, JsonValue.NULL), equalTo(PARSSON.createArrayBuilder()
                    .add(1).addNull().add(3).build()));
            assertThrows(IndexOutOfBoundsException.class, () -> JsonTree.with(d, 3, JsonValue.NULL));
            assertThrows(IndexOutOfBoundsException.class, () -> JsonTree.inserted(d, 4, JsonValue.NULL));
            assertThrows(IndexOutOfBoundsException.class, () -> JsonTree.without(d, -1));
            assertThat(d.toString(), equalTo("[1,2,3]"));
        }
    }

    @Test
    void editedObjectsStayIndexedPastTheLinearLimit() {
        JsonObject o = JsonValue.EMPTY_JSON_OBJECT;
        for (int i = 0; i < 40; i++) {
            o = JsonTree.with(o, "k" + i, PARSSON.createValue(i));
        }
        for (int i = 0; i < 40; i += 2) {
            o = JsonTree.without(o, "k" + i);
        }
        for (int i = 0; i < 40; i++) {
            assertThat(o.get("k" + i), equalTo(i % 2 == 0 ? null : PARSSON.createValue(i)));
        }
        assertThat(o.size(), equalTo(20));
    }

    @Test
    void changedMembersReportsChangesInOrderThenRemovals() {
        for (JsonObject o : both()) {
            JsonObject edited = JsonTree.without(JsonTree.with(JsonTree.with(o, "b", JsonValue.NULL), "e",
                    JsonValue.TRUE), "a");
            assertThat(changes(o, edited), equalTo(List.of("b: {\"c\":2} -> null", "e: null -> true",
                    "a: 1 -> null")));
            assertThat(changes(o, JsonTree.with(o, "d", JsonValue.FALSE)), equalTo(List.of("d: [1,2,3] -> false")));
            assertThat(changes(o, o), equalTo(List.of()));
        }
        List<JsonObject> both = both();
        assertThat("equal but not identical values count as changed", changes(both.get(1), both.get(0)),
                equalTo(List.of("a: 1 -> 1", "b: {\"c\":2} -> {\"c\":2}", "d: [1,2,3] -> [1,2,3]")));
    }

    private static List<String> changes(JsonObject before, JsonObject after) {
        var out = new java.util.ArrayList<String>();
        JsonTree.changedMembers(before, after, (key, a, b) -> out.add(key + ": " + a + " -> " + b));
        return out;
    }

    @Test
    void arraysFromLists() {
        JsonArray a = JsonTree.array(List.of(JsonValue.TRUE, PARSSON.createValue("x")));
        assertThat(a.toString(), equalTo("[true,\"x\"]"));
        assertThat(a.getString(1), equalTo("x"));
        assertThat(a.getBoolean(0), equalTo(true));
        assertThat(a.getString(5, "default"), equalTo("default"));
    }
}

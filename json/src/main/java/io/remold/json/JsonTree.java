package io.remold.json;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParsingException;

import java.util.List;
import java.util.Set;

/**
 * Remold's JSON trees: a parser from UTF-8 bytes and cheap copy-on-write edits. Every tree is plain jakarta.json
 * ({@link JsonObject}, {@link JsonArray}, Parsson's strings and numbers), equal to what Parsson reads from the same
 * text and printed the same way; only its containers are compact arrays instead of hash maps. The edits accept any
 * jakarta.json container and return a compact one that shares every untouched value.
 */
public final class JsonTree {
    private JsonTree() {
    }

    /**
     * Parses one JSON text.
     *
     * @throws JsonParsingException with the line, column and offset of the first error
     */
    public static JsonValue parse(byte[] utf8) {
        return TreeParser.parse(utf8, 0, utf8.length, Set.of());
    }

    /**
     * Parses one JSON text of which some large members are built only when first read: a member of an object
     * directly inside the top-level object (such as {@code request.oldObject} of an AdmissionReview) whose key is in
     * {@code deferredMembers}. Their syntax is still checked here, so every error is thrown by this call.
     */
    public static JsonValue parse(byte[] utf8, Set<String> deferredMembers) {
        return TreeParser.parse(utf8, 0, utf8.length, deferredMembers);
    }

    /** {@code object} with {@code key} set to {@code value}: in its place when present, else last. */
    public static JsonObject with(JsonObject object, String key, JsonValue value) {
        return compact(object).with(key, value);
    }

    /** {@code object} without {@code key}; the same object when it has no such key. */
    public static JsonObject without(JsonObject object, String key) {
        return compact(object).without(key);
    }

    /** {@code array} with element {@code position} replaced. */
    public static JsonArray with(JsonArray array, int position, JsonValue value) {
        return CompactArray.copyOf(array).with(checkIndex(position, array.size()), value);
    }

    /** {@code array} with {@code value} inserted before {@code position}; at the size, appended. */
    public static JsonArray inserted(JsonArray array, int position, JsonValue value) {
        return CompactArray.copyOf(array).inserted(checkIndex(position, array.size() + 1), value);
    }

    /** {@code array} without element {@code position}. */
    public static JsonArray without(JsonArray array, int position) {
        return CompactArray.copyOf(array).without(checkIndex(position, array.size()));
    }

    /** An immutable array of these values. */
    public static JsonArray array(List<? extends JsonValue> values) {
        return new CompactArray(values.toArray(new JsonValue[0]));
    }

    /**
     * Appends {@code text} as a JSON string, escaped as Parsson escapes it (quote, backslash, control characters),
     * and returns {@code out}.
     */
    public static StringBuilder quote(String text, StringBuilder out) {
        JsonText.quote(text, out);
        return out;
    }

    private static CompactObject compact(JsonObject object) {
        return object instanceof DeferredObject deferred ? deferred.tree() : CompactObject.copyOf(object);
    }

    private static int checkIndex(int position, int size) {
        if (position < 0 || position >= size) {
            throw new IndexOutOfBoundsException("index " + position + " out of range for size " + size);
        }
        return position;
    }
}

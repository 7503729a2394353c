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

    /** What {@link #changedMembers} reports: a key whose value differs, with the old value or the new one null. */
    @FunctionalInterface
    public interface MemberChange {
        void changed(String key, JsonValue before, JsonValue after);
    }

    /**
     * Reports the members that differ between two objects, by identity: first every key of {@code after} whose
     * value is not the very same object in {@code before} (in {@code after}'s order; {@code before} null for a new
     * key), then every key of {@code before} that {@code after} lacks ({@code after} null). Edits made with this
     * class share what they did not touch, so two versions of a tree differ by identity only along the paths that
     * changed; a version edited only in place shares the key array too and is compared without one lookup.
     */
    public static void changedMembers(JsonObject before, JsonObject after, MemberChange change) {
        JsonObject a = unwrap(before);
        JsonObject b = unwrap(after);
        if (a instanceof CompactObject x && b instanceof CompactObject y && x.sharesKeys(y)) {
            for (int i = 0; i < y.size(); i++) {
                if (x.valueAt(i) != y.valueAt(i)) {
                    change.changed(y.keyAt(i), x.valueAt(i), y.valueAt(i));
                }
            }
            return;
        }
        b.forEach((key, value) -> {
            JsonValue old = a.get(key);
            if (old != value) {
                change.changed(key, old, value);
            }
        });
        for (String key : a.keySet()) {
            if (!b.containsKey(key)) {
                change.changed(key, a.get(key), null);
            }
        }
    }

    /**
     * Appends {@code text} as a JSON string, escaped as Parsson escapes it (quote, backslash, control characters),
     * and returns {@code out}.
     */
    public static StringBuilder quote(String text, StringBuilder out) {
        JsonText.quote(text, JsonText.Escaping.PARSSON, out);
        return out;
    }

    /**
     * Compact JSON text the way Go's encoding/json writes it (HTML characters escaped, keys in document order), as
     * Kubernetes tools written in Go print a value, for example into an annotation.
     */
    public static String goText(JsonValue value) {
        return JsonText.write(value, JsonText.Escaping.GO);
    }

    private static CompactObject compact(JsonObject object) {
        return CompactObject.copyOf(unwrap(object));
    }

    /** A deferred object's tree (built now if it was not yet); any other object as it is. */
    private static JsonObject unwrap(JsonObject object) {
        return object instanceof DeferredObject deferred ? deferred.tree() : object;
    }

    private static int checkIndex(int position, int size) {
        if (position < 0 || position >= size) {
            throw new IndexOutOfBoundsException("index " + position + " out of range for size " + size);
        }
        return position;
    }
}

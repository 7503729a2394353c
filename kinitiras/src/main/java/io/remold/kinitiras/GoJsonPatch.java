package io.remold.kinitiras;

import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.List;

/**
 * JSON patch as kinitiras applies it (github.com/evanphx/json-patch v4.12): not quite RFC 6902, and a policy's result
 * depends on the differences. A path is split at every {@code /} and its first segment ignored (so {@code a/b} is
 * {@code /b}); every step but the last must exist and be an object or a list (a null member is missing); {@code add}
 * never creates parents; {@code replace} of a missing member of an object adds it; negative list indices count from
 * the end; {@code replace} of the empty path replaces the document. Copy-on-write: the input is never changed.
 */
public final class GoJsonPatch {
    /**
     * Operations one form may make for one object: Remold's bound (kinitiras has none), as a ModRule's, so that a
     * tenant's policy cannot spend a request's time copying an object over and over.
     */
    static final int MAX_OPERATIONS = 1_000;

    private GoJsonPatch() {
    }

    /** The document after the operations, in order; the first that does not apply fails them all, with why. */
    static JsonValue apply(JsonValue document, List<JsonObject> operations) throws PolicyEvaluationException {
        if (operations.size() > MAX_OPERATIONS) {
            throw new PolicyEvaluationException("more than " + MAX_OPERATIONS + " patch operations in one form");
        }
        JsonValue result = document;
        for (JsonObject operation : operations) {
            result = apply(result, operation);
        }
        return result;
    }

    private static JsonValue apply(JsonValue document, JsonObject operation) throws PolicyEvaluationException {
        String op = text(operation, "op");
        String path = text(operation, "path");
        JsonValue value = operation.getOrDefault("value", JsonValue.NULL);
        switch (op) {
            case "add":
                return edit(document, path, op, (container, key) -> add(container, key, value, path));
            case "remove":
                return edit(document, path, op, (container, key) -> remove(container, key, path));
            case "replace":
                if (path.isEmpty()) {
                    if (value instanceof JsonObject || value instanceof JsonArray) {
                        return value;
                    }
                    throw new PolicyEvaluationException("replace operation value must be object or array");
                }
                return edit(document, path, op, (container, key) -> {
                    try {
                        return set(container, key, value);
                    } catch (PolicyEvaluationException e) {
                        throw new PolicyEvaluationException("replace operation does not apply: doc is missing key: "
                                + path + ": missing value");
                    }
                });
            case "move", "copy": {
                String from = text(operation, "from");
                JsonValue[] moved = new JsonValue[1];
                JsonValue source = edit(document, from, op + " from", (container, key) -> {
                    moved[0] = member(container, key);
                    if (moved[0] == null) {
                        throw new PolicyEvaluationException(op + " operation does not apply: doc is missing from path: "
                                + from + ": missing value");
                    }
                    return op.equals("move") ? remove(container, key, from) : container;
                });
                return edit(source, path, op, (container, key) -> add(container, key, moved[0], path));
            }
            case "test": {
                if (path.isEmpty()) {
                    if (!document.equals(value)) {
                        throw new PolicyEvaluationException("testing value  failed: test failed");
                    }
                    return document;
                }
                JsonValue[] found = new JsonValue[1];
                edit(document, path, op, (container, key) -> {
                    found[0] = get(container, key);
                    return container;
                });
                JsonValue actual = found[0] == null ? JsonValue.NULL : found[0];
                if (!actual.equals(value)) {
                    throw new PolicyEvaluationException("testing value " + path + " failed: test failed");
                }
                return document;
            }
            default:
                throw new PolicyEvaluationException("Unexpected kind: " + op);
        }
    }

    /** What an operation does to the container of its last step (an object or a list) and that step's key. */
    @FunctionalInterface
    private interface Edit {
        JsonValue apply(JsonValue container, String key) throws PolicyEvaluationException;
    }

    /** The document with the container {@code path} ends in replaced by {@code edit}'s result. */
    private static JsonValue edit(JsonValue document, String path, String op, Edit edit)
            throws PolicyEvaluationException {
        String[] split = path.split("/", -1);
        if (split.length < 2) {
            throw missing(op, path);
        }
        return edit(document, split, 1, op, path, edit);
    }

    private static JsonValue edit(JsonValue container, String[] split, int step, String op, String path, Edit edit)
            throws PolicyEvaluationException {
        String key = decode(split[step]);
        if (step == split.length - 1) {
            return edit.apply(container, key);
        }
        JsonValue next;
        try {
            next = get(container, key);
        } catch (PolicyEvaluationException e) {
            next = null;
        }
        if (!(next instanceof JsonObject) && !(next instanceof JsonArray)) {
            throw missing(op, path);
        }
        return set(container, key, edit(next, split, step + 1, op, path, edit));
    }

    private static PolicyEvaluationException missing(String op, String path) {
        return new PolicyEvaluationException(op + " operation does not apply: doc is missing path: \"" + path
                + "\": missing value");
    }

    /** A member (null when absent or null), or a list's element (failing outside the list). */
    private static JsonValue get(JsonValue container, String key) throws PolicyEvaluationException {
        if (container instanceof JsonObject object) {
            JsonValue value = object.get(key);
            return value == JsonValue.NULL ? null : value;
        }
        JsonArray list = (JsonArray) container;
        int index = existing(list, key);
        JsonValue value = list.get(index);
        return value == JsonValue.NULL ? null : value;
    }

    /** What {@code move} and {@code copy} take: a member or element as it is, null included; null when absent. */
    private static JsonValue member(JsonValue container, String key) throws PolicyEvaluationException {
        if (container instanceof JsonObject object) {
            return object.get(key);
        }
        JsonArray list = (JsonArray) container;
        return list.get(existing(list, key));
    }

    private static JsonValue set(JsonValue container, String key, JsonValue value) throws PolicyEvaluationException {
        if (container instanceof JsonObject object) {
            return JsonTree.with(object, key, value);
        }
        JsonArray list = (JsonArray) container;
        return JsonTree.with(list, existing(list, key), value);
    }

    private static JsonValue add(JsonValue container, String key, JsonValue value, String path)
            throws PolicyEvaluationException {
        if (container instanceof JsonObject object) {
            return JsonTree.with(object, key, value);
        }
        JsonArray list = (JsonArray) container;
        if (key.equals("-")) {
            return JsonTree.inserted(list, list.size(), value);
        }
        long index = index(key, "error in add for path: '" + path + "': value was not a proper array index: '"
                + key + "'");
        int size = list.size() + 1;
        if (index >= size || index < -size) {
            throw new PolicyEvaluationException("error in add for path: '" + path + "': Unable to access invalid index: "
                    + index + ": invalid index referenced");
        }
        return JsonTree.inserted(list, (int) (index < 0 ? index + size : index), value);
    }

    private static JsonValue remove(JsonValue container, String key, String path) throws PolicyEvaluationException {
        if (container instanceof JsonObject object) {
            if (!object.containsKey(key)) {
                throw new PolicyEvaluationException("error in remove for path: '" + path
                        + "': Unable to remove nonexistent key: " + key + ": missing value");
            }
            return JsonTree.without(object, key);
        }
        JsonArray list = (JsonArray) container;
        return JsonTree.without(list, existing(list, key));
    }

    /** The position of an element that exists, negative indices counting from the end. */
    private static int existing(JsonArray list, String key) throws PolicyEvaluationException {
        long index = index(key, "strconv.Atoi: parsing \"" + key + "\": invalid syntax");
        if (index >= list.size() || index < -list.size()) {
            throw new PolicyEvaluationException("Unable to access invalid index: " + index
                    + ": invalid index referenced");
        }
        return (int) (index < 0 ? index + list.size() : index);
    }

    /** Go's {@code strconv.Atoi}: an optional sign and ASCII digits. */
    private static long index(String key, String invalid) throws PolicyEvaluationException {
        int start = key.startsWith("+") || key.startsWith("-") ? 1 : 0;
        if (key.length() == start || key.length() - start > 18) {
            throw new PolicyEvaluationException(invalid);
        }
        for (int i = start; i < key.length(); i++) {
            if (key.charAt(i) < '0' || key.charAt(i) > '9') {
                throw new PolicyEvaluationException(invalid);
            }
        }
        return Long.parseLong(key);
    }

    /** RFC 6901: {@code ~1} is {@code /}, then {@code ~0} is {@code ~}, in one pass. */
    public static String decode(String segment) {
        if (segment.indexOf('~') < 0) {
            return segment;
        }
        var out = new StringBuilder(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '~' && i + 1 < segment.length() && (segment.charAt(i + 1) == '0' || segment.charAt(i + 1) == '1')) {
                out.append(segment.charAt(++i) == '0' ? '~' : '/');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String text(JsonObject operation, String key) {
        return operation.get(key) instanceof JsonString s ? s.getString() : "";
    }
}

package io.remold.engine;

import io.remold.api.PatchOp;
import io.remold.json.JsonTree;
import io.remold.jsonpath.JsonPath;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * JSON Patch over immutable jakarta.json values, copied on write as compact trees ({@code JsonTree}), with
 * KubeMod's extensions: negative indices count from the end ({@code -1} appends on add), {@code add} creates
 * missing parents (a list when the next step is an index), removing a missing path does nothing, and
 * {@code replace} of a missing path is an error. Two more of Remold's own: a list step by key ({@link KeyedStep})
 * and {@code remove} with a value, which removes every equal item of the list at the path.
 */
final class JsonPatcher {

    /**
     * One concrete operation: a JSON Pointer and a value; a remove's value is null, or the item to remove from the
     * list at the path.
     */
    record Operation(PatchOp op, String path, JsonValue value) {
        JsonObject toJson() {
            JsonObject json = JsonTree.with(JsonTree.with(JsonValue.EMPTY_JSON_OBJECT, "op", Json.PROVIDER.createValue(
                    op.name())), "path", Json.PROVIDER.createValue(path));
            return value == null ? json : JsonTree.with(json, "value", value);
        }

        boolean removesItems() {
            return op == PatchOp.remove && value != null;
        }
    }

    static final class PatchException extends Exception {
        PatchException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * How many nulls an add may put before a new element past the end of a list (the index is the rule author's, or
     * a capture's): a larger gap is refused, not allocated (found by fuzzing: an index of 221,100 took minutes).
     */
    static final int MAX_PADDING = 10_000;

    private JsonPatcher() {
    }

    static JsonValue apply(JsonValue document, List<Operation> operations) throws PatchException {
        JsonValue doc = document;
        for (Operation op : operations) {
            doc = apply(doc, op);
        }
        return doc;
    }

    static JsonValue apply(JsonValue document, Operation operation) throws PatchException {
        List<String> tokens = tokens(operation.path());
        if (tokens.isEmpty()) {
            return switch (operation.op()) {
                case add, replace -> operation.value();
                case remove -> throw new PatchException("cannot remove the whole document");
            };
        }
        JsonValue result = update(document, tokens, 0, operation);
        return result == null ? document : result;
    }

    /** Returns the changed container, or null when nothing changes (remove of a missing path). */
    private static JsonValue update(JsonValue node, List<String> tokens, int at, Operation op) throws PatchException {
        String token = tokens.get(at);
        boolean last = at == tokens.size() - 1;
        if (node instanceof JsonObject object) {
            JsonValue child = object.get(token);
            if (last) {
                switch (op.op()) {
                    case add:
                        return JsonTree.with(object, token, op.value());
                    case replace:
                        if (child == null) {
                            throw new PatchException("replace: missing key \"" + token + "\" at " + prefix(tokens, at));
                        }
                        return JsonTree.with(object, token, op.value());
                    default:
                        if (op.removesItems()) {
                            JsonValue kept = withoutItems(child, op, tokens, at + 1);
                            return kept == null ? null : JsonTree.with(object, token, kept);
                        }
                        return child == null ? null : JsonTree.without(object, token);
                }
            }
            if (child == null) {
                if (op.op() == PatchOp.remove) {
                    return null;
                }
                if (op.op() == PatchOp.replace) {
                    throw new PatchException("replace: missing key \"" + token + "\" at " + prefix(tokens, at));
                }
                child = emptyParent(tokens, at + 1);
            }
            JsonValue changed = update(child, tokens, at + 1, op);
            return changed == null ? null : JsonTree.with(object, token, changed);
        }
        if (node instanceof JsonArray array) {
            KeyedStep keyed = KeyedStep.parse(token);
            if (keyed != null) {
                return last ? setKeyed(array, keyed, tokens, at, op) : updateKeyed(array, keyed, tokens, at, op);
            }
            int size = array.size();
            if ("-".equals(token) && last && op.op() == PatchOp.add) {
                return JsonTree.inserted(array, size, op.value());
            }
            Integer parsed = index(token);
            if (parsed == null) {
                if (op.op() == PatchOp.remove) {
                    return null;
                }
                throw new PatchException(op.op() + ": \"" + token + "\" is not an index of the list at "
                        + prefix(tokens, at));
            }
            int index = parsed;
            if (last && op.op() == PatchOp.add) {
                int position = index < 0 ? index + size + 1 : index;
                if (position < 0 || position > size) {
                    throw new PatchException("add: index " + index + " out of range for the list at "
                            + prefix(tokens, at) + " (size " + size + ")");
                }
                return JsonTree.inserted(array, position, op.value());
            }
            int position = index < 0 ? index + size : index;
            if (position < 0 || position >= size) {
                if (op.op() == PatchOp.remove) {
                    return null;
                }
                if (op.op() == PatchOp.add && index >= size) {
                    // A missing parent past the end of a list is created like a missing key, after nulls up to it.
                    checkPadding(index - size, tokens, at);
                    JsonValue created = update(emptyParent(tokens, at + 1), tokens, at + 1, op);
                    var padded = new ArrayList<JsonValue>(array);
                    for (int i = size; i < index; i++) {
                        padded.add(JsonValue.NULL);
                    }
                    padded.add(created);
                    return JsonTree.array(padded);
                }
                throw new PatchException(op.op() + ": index " + index + " out of range for the list at "
                        + prefix(tokens, at) + " (size " + size + ")");
            }
            if (last) {
                if (op.op() == PatchOp.replace) {
                    return JsonTree.with(array, position, op.value());
                }
                if (op.removesItems()) {
                    JsonValue kept = withoutItems(array.get(position), op, tokens, at + 1);
                    return kept == null ? null : JsonTree.with(array, position, kept);
                }
                return JsonTree.without(array, position);
            }
            JsonValue changed = update(array.get(position), tokens, at + 1, op);
            return changed == null ? null : JsonTree.with(array, position, changed);
        }
        if (op.op() == PatchOp.remove) {
            return null;
        }
        throw new PatchException(op.op() + ": " + prefix(tokens, at) + " is a " + node.getValueType().name()
                .toLowerCase() + ", not an object or list");
    }

    /**
     * A step by key that is not the last: the rest of the path is applied to every element with the key; when none
     * has it, an add appends an element holding just the key and applies the rest to it (kept only if that changed
     * it), a remove does nothing and a replace fails.
     */
    private static JsonValue updateKeyed(JsonArray array, KeyedStep step, List<String> tokens, int at, Operation op)
            throws PatchException {
        List<JsonValue> elements = null;
        boolean found = false;
        for (int i = 0; i < array.size(); i++) {
            if (!step.matches(array.get(i))) {
                continue;
            }
            found = true;
            JsonValue changed = update(array.get(i), tokens, at + 1, op);
            if (changed != null) {
                if (elements == null) {
                    elements = new ArrayList<>(array);
                }
                elements.set(i, changed);
            }
        }
        if (found) {
            return elements == null ? null : JsonTree.array(elements);
        }
        switch (op.op()) {
            case add -> {
                JsonValue created = update(step.element(), tokens, at + 1, op);
                return created == null ? null : JsonTree.inserted(array, array.size(), created);
            }
            case replace -> throw new PatchException("replace: no element with " + step + " in the list at "
                    + prefix(tokens, at));
            default -> {
                return null;
            }
        }
    }

    /**
     * A step by key that is the last: add and replace put the value in place of the first element with the key (an
     * add appends it when none has the key, a replace fails), and the value must keep the key; remove takes out every
     * element with the key.
     */
    private static JsonValue setKeyed(JsonArray array, KeyedStep step, List<String> tokens, int at, Operation op)
            throws PatchException {
        if (op.op() == PatchOp.remove) {
            if (op.removesItems()) {
                throw new PatchException("remove: a value removes items of a list, and " + prefix(tokens, at + 1)
                        + " is an element");
            }
            var kept = new ArrayList<JsonValue>(array.size());
            for (JsonValue element : array) {
                if (!step.matches(element)) {
                    kept.add(element);
                }
            }
            return kept.size() == array.size() ? null : JsonTree.array(kept);
        }
        if (!step.matches(op.value())) {
            throw new PatchException(op.op() + ": the value for " + prefix(tokens, at + 1)
                    + " must be an object with the same key, " + step);
        }
        for (int i = 0; i < array.size(); i++) {
            if (step.matches(array.get(i))) {
                return JsonTree.with(array, i, op.value());
            }
        }
        if (op.op() == PatchOp.replace) {
            throw new PatchException("replace: no element with " + step + " in the list at " + prefix(tokens, at));
        }
        return JsonTree.inserted(array, array.size(), op.value());
    }

    /** The list {@code target} without the items equal to the operation's value; null when none is. */
    private static JsonValue withoutItems(JsonValue target, Operation op, List<String> tokens, int at)
            throws PatchException {
        if (target == null) {
            return null;
        }
        if (!(target instanceof JsonArray list)) {
            throw new PatchException("remove: a value removes items of a list, and " + prefix(tokens, at)
                    + " is not a list but " + target.getValueType().name().toLowerCase());
        }
        var kept = new ArrayList<JsonValue>(list.size());
        for (JsonValue item : list) {
            if (!JsonPath.sameValue(item, op.value())) {
                kept.add(item);
            }
        }
        return kept.size() == list.size() ? null : JsonTree.array(kept);
    }

    /** The container a missing parent at {@code tokens[at]} becomes: a list padded with nulls when it is an index. */
    private static JsonValue emptyParent(List<String> tokens, int at) throws PatchException {
        String next = tokens.get(at);
        if (KeyedStep.parse(next) != null) {
            return JsonValue.EMPTY_JSON_ARRAY;
        }
        Integer index = index(next);
        if (index == null && !"-".equals(next)) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        int padding = index == null ? 0 : Math.max(0, index);
        checkPadding(padding, tokens, at);
        return JsonTree.array(Collections.nCopies(padding, JsonValue.NULL));
    }

    private static void checkPadding(int padding, List<String> tokens, int at) throws PatchException {
        if (padding > MAX_PADDING) {
            throw new PatchException("add: index " + tokens.get(at) + " is " + padding + " past the end of the list at "
                    + prefix(tokens, at) + " (at most " + MAX_PADDING + ")");
        }
    }

    private static Integer index(String token) {
        if (token.isEmpty() || token.length() > 11) {
            return null;
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (!(c >= '0' && c <= '9') && !(i == 0 && c == '-' && token.length() > 1)) {
                return null;
            }
        }
        long value = Long.parseLong(token);
        return value == (int) value ? (int) value : null;
    }

    private static String prefix(List<String> tokens, int at) {
        var sb = new StringBuilder();
        for (int i = 0; i < at; i++) {
            sb.append('/').append(escape(tokens.get(i)));
        }
        return sb.isEmpty() ? "/" : sb.toString();
    }

    static List<String> tokens(String pointer) throws PatchException {
        if (pointer.isEmpty()) {
            return List.of();
        }
        if (pointer.charAt(0) != '/') {
            throw new PatchException("path \"" + pointer + "\" does not start with /");
        }
        var out = new ArrayList<String>();
        int start = 1;
        while (true) {
            int slash = pointer.indexOf('/', start);
            String raw = slash < 0 ? pointer.substring(start) : pointer.substring(start, slash);
            out.add(raw.indexOf('~') < 0 ? raw : raw.replace("~1", "/").replace("~0", "~"));
            if (slash < 0) {
                return out;
            }
            start = slash + 1;
        }
    }

    static String escape(String key) {
        if (key.indexOf('~') < 0 && key.indexOf('/') < 0) {
            return key;
        }
        return key.replace("~", "~0").replace("/", "~1");
    }
}

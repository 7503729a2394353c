package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.path.Location;
import io.remold.gatekeeper.path.PathNode;
import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.util.ArrayList;
import java.util.List;

/**
 * Walks a location through an object, creating what is missing, and applies a {@link Setter} at its end, the way
 * Gatekeeper's core mutation function does:
 * <ul>
 * <li>a missing field on the way becomes {@code {}} (or {@code []} when a keyed list follows); a missing {@code
 * [key: value]} element becomes {@code {key: value}}; a glob {@code [key: *]} visits existing elements only;</li>
 * <li>key values are typed: {@code [port: 8080]} matches the integer 8080, not the string {@code "8080"}; every
 * element with the key value is visited;</li>
 * <li>path tests are checked at each depth as the walk gets there (so per element under a glob); a failed test
 * leaves that subtree untouched and creates nothing;</li>
 * <li>once the walk reaches the last node, the parents it created stay even if the setter changes nothing there
 * (Gatekeeper counts reaching the end as a mutation).</li>
 * </ul>
 * The input is never modified: edits are copy-on-write, and an unchanged subtree is returned as the same instance.
 */
final class Core {
    private static final JsonProvider JSON = JsonProvider.provider();

    private Core() {
    }

    /**
     * The object after setting the location, or {@code object} itself when nothing changed (including when a path
     * test fails: then nothing is created either).
     */
    static JsonObject mutate(List<PathNode> path, PathTests tests, Setter setter, JsonObject object)
            throws MutationException {
        if (path.isEmpty()) {
            throw new MutationException("attempting to mutate an empty target location");
        }
        JsonValue result = new Walk(path, tests, setter).visit(object, 0);
        return result == null ? object : (JsonObject) result;
    }

    /** One walk; {@link #visit} returns null where Gatekeeper reports "not mutated", else the (new) value. */
    private record Walk(List<PathNode> path, PathTests tests, Setter setter) {

        JsonValue visit(JsonValue current, int depth) throws MutationException {
            return switch (path.get(depth)) {
                case PathNode.Field field -> visitField(current, field, depth);
                case PathNode.KeyedList list -> visitList(current, list, depth);
            };
        }

        private JsonValue visitField(JsonValue current, PathNode.Field field, int depth) throws MutationException {
            if (!(current instanceof JsonObject object)) {
                throw mismatch("an object", current, depth);
            }
            JsonValue child = object.get(field.name());
            boolean exists = child != null;
            if (exists ? !tests.existsOkay(depth) : !tests.missingOkay(depth)) {
                return null;
            }
            if (depth == path.size() - 1) {
                JsonValue next = setter.set(child);
                boolean unchanged = next == null || next == child || next.equals(child);
                return unchanged ? object : JsonTree.with(object, field.name(), next);
            }
            JsonValue start = exists ? child : created(depth);
            JsonValue next = visit(start, depth + 1);
            if (next == null) {
                return null;
            }
            return exists && next == child ? object : JsonTree.with(object, field.name(), next);
        }

        private JsonValue visitList(JsonValue current, PathNode.KeyedList list, int depth) throws MutationException {
            if (!(current instanceof JsonArray array)) {
                throw mismatch("a list", current, depth);
            }
            if (depth == path.size() - 1) {
                return setElement(array, list, depth);
            }
            if (list.glob() && !tests.existsOkay(depth)) {
                return null; // MustNotExist on a glob can never hold
            }
            var elements = new ArrayList<JsonValue>(array);
            boolean mutated = false; // the walk reached the end somewhere below (Gatekeeper's "mutated")
            boolean found = false;
            for (int i = 0; i < elements.size(); i++) {
                JsonValue element = elements.get(i);
                if (!list.glob()) {
                    if (!hasKey(element, list)) {
                        continue;
                    }
                    if (!tests.existsOkay(depth)) {
                        return null;
                    }
                }
                found = true;
                JsonValue next = visit(element, depth + 1);
                if (next != null) {
                    mutated = true;
                    elements.set(i, next);
                }
            }
            if (!list.glob() && !found) {
                if (!tests.missingOkay(depth)) {
                    return null;
                }
                JsonValue next = visit(created(depth), depth + 1);
                if (next != null) {
                    mutated = true;
                    elements.add(next);
                }
            }
            if (!mutated) {
                return null;
            }
            return sameInstances(elements, array) ? array : JsonTree.array(elements);
        }

        /** The location ends at a keyed list: replace the element with the key value, or append one. */
        private JsonValue setElement(JsonArray array, PathNode.KeyedList list, int depth) throws MutationException {
            if (list.glob()) {
                throw new MutationException("the last node of location " + Location.format(path)
                        + " can not be a glob");
            }
            JsonObject value = setter.keyedListValue();
            for (int i = 0; i < array.size(); i++) {
                if (!(array.get(i) instanceof JsonObject element)) {
                    throw new MutationException("element " + i + " of the list at " + prefix(depth)
                            + " is not an object, so it has no key " + list.keyField());
                }
                if (!hasKey(element, list)) {
                    continue;
                }
                if (!hasKey(value, list)) {
                    throw new MutationException("key value of replaced object must not change");
                }
                if (!tests.existsOkay(depth)) {
                    return null;
                }
                return value.equals(element) ? array : JsonTree.with(array, i, value);
            }
            if (!tests.missingOkay(depth)) {
                return null;
            }
            return JsonTree.inserted(array, array.size(), value);
        }

        /** What a missing node at {@code depth} starts as: shaped for the next node, keyed when it is an element. */
        private JsonValue created(int depth) {
            JsonValue empty = path.get(depth + 1) instanceof PathNode.KeyedList
                    ? JsonValue.EMPTY_JSON_ARRAY : JsonValue.EMPTY_JSON_OBJECT;
            if (path.get(depth) instanceof PathNode.KeyedList list) {
                // The parser allows no list right after a list, and a glob never creates, so this is an object.
                return JsonTree.with((JsonObject) empty, list.keyField(), keyValue(list));
            }
            return empty;
        }

        private MutationException mismatch(String expected, JsonValue found, int depth) {
            return new MutationException("location " + Location.format(path) + " needs " + expected + " at "
                    + prefix(depth) + " but found " + describe(found));
        }

        private String prefix(int length) {
            return length == 0 ? "the root" : Location.format(path.subList(0, length));
        }
    }

    /**
     * Whether {@code element} is an object whose key field holds the node's key value with the same JSON type (Go's
     * {@code ==} on decoded values: {@code "8080"} is not 8080, and 8080.0 is not 8080).
     */
    static boolean hasKey(JsonValue element, PathNode.KeyedList list) {
        if (list.glob() || !(element instanceof JsonObject object)) {
            return false;
        }
        JsonValue value = object.get(list.keyField());
        return value != null && ModifySet.sameValue(keyValue(list), value);
    }

    private static boolean sameInstances(List<JsonValue> elements, JsonArray array) {
        if (elements.size() != array.size()) {
            return false;
        }
        for (int i = 0; i < elements.size(); i++) {
            if (elements.get(i) != array.get(i)) {
                return false;
            }
        }
        return true;
    }

    private static JsonValue keyValue(PathNode.KeyedList list) {
        return list.keyValue() instanceof Long number
                ? JSON.createValue(number) : JSON.createValue((String) list.keyValue());
    }

    private static String describe(JsonValue value) {
        return switch (value.getValueType()) {
            case OBJECT -> "an object";
            case ARRAY -> "a list";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case TRUE, FALSE -> "a boolean";
            case NULL -> "null";
        };
    }
}

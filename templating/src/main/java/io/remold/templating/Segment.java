package io.remold.templating;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

/** One step of a path after its head. {@code apply} returns null when the step selects nothing. */
sealed interface Segment {

    JsonValue apply(JsonValue value, Scope scope, Expression.Path path);

    /** {@code .name}: a key of an object, or (when all digits) an index of a list, Mustache style. */
    record Name(String name) implements Segment {
        @Override
        public JsonValue apply(JsonValue value, Scope scope, Expression.Path path) {
            if (value instanceof JsonObject object) {
                return object.get(name);
            }
            if (value instanceof JsonArray array && !name.isEmpty() && name.length() <= 9
                    && name.chars().allMatch(Character::isDigit)) {
                return element(array, Integer.parseInt(name)); // a longer index is past any list's end: nothing
            }
            return null;
        }
    }

    /** {@code ["key"]}: a key of an object; applied to a list it is an error, as in Go's {@code index}. */
    record Key(String key) implements Segment {
        @Override
        public JsonValue apply(JsonValue value, Scope scope, Expression.Path path) {
            return byKey(value, key, path);
        }
    }

    /** {@code [3]}: an index of a list; applied to an object it is an error, as in Go's {@code index}. */
    record Index(int index) implements Segment {
        @Override
        public JsonValue apply(JsonValue value, Scope scope, Expression.Path path) {
            return byIndex(value, index, path);
        }
    }

    /** {@code [SelectKeyParts[0]]}: a key or an index computed from the context. */
    record Dynamic(Expression key) implements Segment {
        @Override
        public JsonValue apply(JsonValue value, Scope scope, Expression.Path path) {
            JsonValue computed = key.evaluate(scope);
            if (computed instanceof JsonString string) {
                return byKey(value, string.getString(), path);
            }
            if (computed instanceof JsonNumber number && number.isIntegral()) {
                // an index beyond int range is beyond the end of any list
                int index = number.bigIntegerValue().bitLength() < 32 ? number.intValue() : Integer.MAX_VALUE;
                return byIndex(value, index, path);
            }
            return null;
        }
    }

    private static JsonValue byKey(JsonValue value, String key, Expression.Path path) {
        if (value instanceof JsonObject object) {
            return object.get(key);
        }
        if (value instanceof JsonArray) {
            throw path.source().error("cannot index a list with the key \"" + key + "\"", path.offset());
        }
        return null;
    }

    private static JsonValue byIndex(JsonValue value, int index, Expression.Path path) {
        if (value instanceof JsonArray array) {
            return element(array, index);
        }
        if (value instanceof JsonObject) {
            throw path.source().error("cannot index an object with the number " + index, path.offset());
        }
        return null;
    }

    private static JsonValue element(JsonArray array, int index) {
        return index >= 0 && index < array.size() ? array.get(index) : null;
    }
}

package io.remold.api;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.function.Function;

/** Members of a manifest read with their type checked; each reader names the field and words the error its way. */
public final class JsonFields {
    private JsonFields() {
    }

    /**
     * The string member {@code key} of {@code object}: {@code absent} when it is missing or null, and for any other
     * type the exception {@code mistyped} makes of the value, thrown.
     */
    public static String string(JsonObject object, String key, String absent,
                                Function<JsonValue, ? extends RuntimeException> mistyped) {
        JsonString value = member(object, key, JsonString.class, null, mistyped);
        return value == null ? absent : value.getString();
    }

    /**
     * The member {@code key} of {@code object} as a {@code type} (an object, a list, a string): {@code absent} when
     * it is missing or null, and for any other type the exception {@code mistyped} makes of the value, thrown.
     */
    public static <T extends JsonValue> T member(JsonObject object, String key, Class<T> type, T absent,
                                                 Function<JsonValue, ? extends RuntimeException> mistyped) {
        JsonValue value = object.get(key);
        if (value == null || value == JsonValue.NULL) {
            return absent;
        }
        if (type.isInstance(value)) {
            return type.cast(value);
        }
        throw mistyped.apply(value);
    }
}

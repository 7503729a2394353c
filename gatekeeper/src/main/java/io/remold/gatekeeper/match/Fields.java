package io.remold.gatekeeper.match;

import io.remold.api.JsonFields;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Typed reads of a {@code match} or {@code applyTo} block. A missing or null member reads as empty, as Go's unmarshal
 * leaves it; a member of the wrong JSON type is refused naming its field.
 */
final class Fields {
    private Fields() {
    }

    /** {@code prefix.key}, or {@code key} at the top of the block. */
    static String field(String prefix, String key) {
        return prefix.isEmpty() ? key : prefix + "." + key;
    }

    static String string(JsonObject object, String key, String prefix) {
        return JsonFields.string(object, key, "",
                v -> new InvalidMatchException(field(prefix, key), "must be a string"));
    }

    static List<String> strings(JsonObject object, String key, String prefix) {
        JsonArray array = array(object, key, prefix);
        var out = new ArrayList<String>(array.size());
        for (int i = 0; i < array.size(); i++) {
            if (!(array.get(i) instanceof JsonString s)) {
                throw new InvalidMatchException(field(prefix, key) + "[" + i + "]", "must be a string");
            }
            out.add(s.getString());
        }
        return List.copyOf(out);
    }

    static JsonArray array(JsonObject object, String key, String prefix) {
        return JsonFields.member(object, key, JsonArray.class, JsonValue.EMPTY_JSON_ARRAY,
                v -> new InvalidMatchException(field(prefix, key), "must be a list"));
    }

    /** The member as an object; null when missing or null. */
    static JsonObject object(JsonObject object, String key, String prefix) {
        return JsonFields.member(object, key, JsonObject.class, null,
                v -> new InvalidMatchException(field(prefix, key), "must be an object"));
    }

    /** A {@code map[string]string} member, in document order. */
    static Map<String, String> stringMap(JsonObject object, String key, String prefix) {
        JsonObject map = object(object, key, prefix);
        var out = new LinkedHashMap<String, String>();
        if (map != null) {
            map.forEach((k, v) -> {
                if (!(v instanceof JsonString s)) {
                    throw new InvalidMatchException(field(prefix, key) + "." + k, "must be a string");
                }
                out.put(k, s.getString());
            });
        }
        return out;
    }

    /** An element of a list that must be an object. */
    static JsonObject element(JsonValue value, String field) {
        if (value instanceof JsonObject o) {
            return o;
        }
        if (value == JsonValue.NULL) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        throw new InvalidMatchException(field, "must be an object");
    }
}

package io.remold.kinitiras;

import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;

/**
 * A CUE output as kinitiras hands it on after decoding it into Go ({@code interface{}}): CUE's decoder builds a
 * list by appending to a nil slice, so an empty list, at any depth, becomes {@code null}.
 */
public final class GoDecoding {
    private static final JsonProvider JSON = JsonProvider.provider();

    private GoDecoding() {
    }

    public static JsonValue decoded(JsonValue value) {
        if (value instanceof JsonArray list) {
            if (list.isEmpty()) {
                return JsonValue.NULL;
            }
            JsonArrayBuilder out = JSON.createArrayBuilder();
            list.forEach(element -> out.add(decoded(element)));
            return out.build();
        }
        if (value instanceof JsonObject object) {
            JsonObjectBuilder out = JSON.createObjectBuilder();
            object.forEach((name, field) -> out.add(name, decoded(field)));
            return out.build();
        }
        return value;
    }
}

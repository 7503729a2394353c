package io.remold.rules.impact;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

/** The object a verdict is about, as reports name resources; {@code namespace} is empty for a cluster object. */
public record ObjectRef(String apiVersion, String kind, String namespace, String name) {
    /** The reference of a Kubernetes object (missing members read as empty text). */
    public static ObjectRef of(JsonObject object) {
        JsonObject metadata = object.get("metadata") instanceof JsonObject m ? m : JsonValue.EMPTY_JSON_OBJECT;
        return new ObjectRef(text(object, "apiVersion"), text(object, "kind"), text(metadata, "namespace"),
                text(metadata, "name"));
    }

    private static String text(JsonObject object, String key) {
        return object.get(key) instanceof JsonString s ? s.getString() : "";
    }
}

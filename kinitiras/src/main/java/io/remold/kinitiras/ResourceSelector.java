package io.remold.kinitiras;

import io.remold.api.Reference;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One entry of {@code resourceSelectors}. As kinitiras's {@code ResourceMatches}: apiVersion and kind must be equal,
 * a namespace (when given) too; then a name decides alone; otherwise the field selector and the label selector must
 * both hold (either absent holds; both absent select every object of the kind).
 */
record ResourceSelector(String apiVersion, String kind, String namespace, String name,
                        Optional<Reference.Selector> labelSelector, Optional<FieldSelector> fieldSelector) {

    /** {@code namespace} is the object's, or the request's when the object has none (kinitiras fills it in). */
    boolean matches(JsonObject object, String namespace) {
        if (!apiVersion.equals(text(object.get("apiVersion"))) || !kind.equals(text(object.get("kind")))
                || !this.namespace.isEmpty() && !this.namespace.equals(namespace)) {
            return false;
        }
        JsonObject metadata = object.get("metadata") instanceof JsonObject m ? m : JsonValue.EMPTY_JSON_OBJECT;
        if (!name.isEmpty()) {
            return name.equals(text(metadata.get("name")));
        }
        if (fieldSelector.isPresent() && !fieldSelector.get().matches(object)) {
            return false;
        }
        return labelSelector.isEmpty() || labelSelector.get().matches(labels(metadata));
    }

    /** Labels as kinitiras reads them: none at all when any value is not a string. */
    private static Map<String, String> labels(JsonObject metadata) {
        if (!(metadata.get("labels") instanceof JsonObject labels)) {
            return Map.of();
        }
        var result = new HashMap<String, String>();
        for (Map.Entry<String, JsonValue> e : labels.entrySet()) {
            if (!(e.getValue() instanceof JsonString s)) {
                return Map.of();
            }
            result.put(e.getKey(), s.getString());
        }
        return result;
    }

    private static String text(JsonValue value) {
        return value instanceof JsonString s ? s.getString() : "";
    }
}

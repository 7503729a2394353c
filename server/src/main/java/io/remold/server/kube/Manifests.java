package io.remold.server.kube;

import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.io.StringReader;
import java.util.Optional;

/** Converts informer objects (gson trees) into the engine's jakarta.json model, once per informer event. */
final class Manifests {
    static final JsonProvider JSON = JsonProvider.provider();

    private Manifests() {
    }

    /** The object as jakarta.json, without {@code metadata.managedFields} (bookkeeping no rule should see). */
    static JsonObject toJson(DynamicKubernetesObject object) {
        try (var reader = JSON.createReader(new StringReader(object.getRaw().toString()))) {
            JsonObject json = reader.readObject();
            JsonValue metadata = json.get("metadata");
            if (metadata instanceof JsonObject meta && meta.containsKey("managedFields")) {
                return JSON.createObjectBuilder(json)
                        .add("metadata", JSON.createObjectBuilder(meta).remove("managedFields"))
                        .build();
            }
            return json;
        }
    }

    /** A string field of {@code metadata}, for example {@code name}. */
    static Optional<String> metadata(JsonObject object, String field) {
        return string(object.get("metadata"), field);
    }

    /** The value of a label or annotation ({@code kind} is {@code labels} or {@code annotations}). */
    static Optional<String> metadataEntry(JsonObject object, String kind, String key) {
        JsonValue metadata = object.get("metadata");
        return metadata instanceof JsonObject meta ? string(meta.get(kind), key) : Optional.empty();
    }

    private static Optional<String> string(JsonValue parent, String field) {
        return parent instanceof JsonObject o && o.get(field) instanceof JsonString s
                ? Optional.of(s.getString()) : Optional.empty();
    }
}

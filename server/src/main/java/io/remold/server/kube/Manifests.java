package io.remold.server.kube;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/** Converts informer objects (gson trees) into the engine's jakarta.json model, once per informer event. */
final class Manifests {
    static final JsonProvider JSON = JsonProvider.provider();

    private Manifests() {
    }

    /**
     * The object as a compact jakarta.json tree ({@link JsonTree}: less than half the size of Parsson's maps). An
     * informer's object ({@link Kept}) carries it already.
     */
    static JsonObject toJson(DynamicKubernetesObject object) {
        return object instanceof Kept kept ? kept.manifest
                : JsonTree.parse(object.getRaw().toString().getBytes(StandardCharsets.UTF_8)).asJsonObject();
    }

    /**
     * The informers' transform, applied to each object before the informer stores it and hands it to its handlers:
     * the object as {@link Kept}, without {@code metadata.managedFields} (bookkeeping no rule should see, and often
     * the larger part of a small object).
     */
    static KubernetesObject kept(KubernetesObject object) {
        if (!(object instanceof DynamicKubernetesObject dynamic) || object instanceof Kept) {
            return object; // a resync hands back what the store holds
        }
        com.google.gson.JsonObject raw = dynamic.getRaw();
        var identity = new com.google.gson.JsonObject();
        for (String field : List.of("apiVersion", "kind")) {
            if (raw.has(field)) {
                identity.add(field, raw.get(field));
            }
        }
        if (raw.get("metadata") instanceof com.google.gson.JsonObject metadata) {
            metadata.remove("managedFields");
            var meta = new com.google.gson.JsonObject();
            for (String field : List.of("name", "namespace", "uid", "resourceVersion")) {
                if (metadata.has(field)) {
                    meta.add(field, metadata.get(field));
                }
            }
            identity.add("metadata", meta);
        }
        return new Kept(identity, toJson(dynamic));
    }

    /**
     * An object as the informers keep it: its manifest as a compact jakarta.json tree, which the caches and rule
     * sources read, and as gson only what the informer itself reads (kind, apiVersion, name, namespace, uid,
     * resourceVersion). Otherwise the informer's store would hold a second and larger copy of every Namespace, Node
     * and rule, for as long as it exists.
     */
    static final class Kept extends DynamicKubernetesObject {
        private final JsonObject manifest;

        private Kept(com.google.gson.JsonObject identity, JsonObject manifest) {
            super(identity);
            this.manifest = manifest;
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

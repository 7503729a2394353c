package io.remold.server.kube;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.remold.server.admission.ClusterRefs;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Namespace and Node manifests kept as jakarta.json, converted once per informer event, so that the request path
 * only does map look-ups.
 */
final class ClusterCache implements ClusterRefs {
    static final String IGNORE_LABEL = "admission.remold.io/ignore";
    static final String KUBEMOD_IGNORE_LABEL = "admission.kubemod.io/ignore";

    private record CachedNamespace(JsonObject manifest, boolean ignored) {
    }

    private final Map<String, CachedNamespace> namespaces = new ConcurrentHashMap<>();
    private final Map<String, JsonObject> nodes = new ConcurrentHashMap<>();
    private final List<String> ignoreLabels;

    /** With {@code kubemodCompat}, KubeMod's ignore label counts too. */
    ClusterCache(boolean kubemodCompat) {
        this.ignoreLabels = kubemodCompat ? List.of(IGNORE_LABEL, KUBEMOD_IGNORE_LABEL) : List.of(IGNORE_LABEL);
    }

    @Override
    public Optional<JsonValue> namespace(String name) {
        CachedNamespace ns = name == null ? null : namespaces.get(name);
        return ns == null ? Optional.empty() : Optional.of(ns.manifest());
    }

    @Override
    public Optional<JsonValue> node(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(nodes.get(name));
    }

    @Override
    public boolean ignored(String namespace) {
        CachedNamespace ns = namespace == null ? null : namespaces.get(namespace);
        return ns != null && ns.ignored();
    }

    ResourceEventHandler<DynamicKubernetesObject> namespaceHandler() {
        return new Handler() {
            @Override
            void put(String name, JsonObject manifest) {
                boolean ignored = ignoreLabels.stream().anyMatch(label ->
                        Manifests.metadataEntry(manifest, "labels", label).filter("true"::equals).isPresent());
                namespaces.put(name, new CachedNamespace(manifest, ignored));
            }

            @Override
            void remove(String name) {
                namespaces.remove(name);
            }
        };
    }

    ResourceEventHandler<DynamicKubernetesObject> nodeHandler() {
        return new Handler() {
            @Override
            void put(String name, JsonObject manifest) {
                nodes.put(name, manifest);
            }

            @Override
            void remove(String name) {
                nodes.remove(name);
            }
        };
    }

    /** Maps informer events of a cluster-scoped resource onto put/remove by name. */
    private abstract static class Handler implements ResourceEventHandler<DynamicKubernetesObject> {
        abstract void put(String name, JsonObject manifest);

        abstract void remove(String name);

        @Override
        public void onAdd(DynamicKubernetesObject object) {
            JsonObject manifest = Manifests.toJson(object);
            Manifests.metadata(manifest, "name").ifPresent(name -> put(name, manifest));
        }

        @Override
        public void onUpdate(DynamicKubernetesObject oldObject, DynamicKubernetesObject newObject) {
            onAdd(newObject);
        }

        @Override
        public void onDelete(DynamicKubernetesObject object, boolean finalStateUnknown) {
            String name = object.getMetadata() == null ? null : object.getMetadata().getName();
            if (name != null) {
                remove(name);
            }
        }
    }
}

package io.remold.server.admission;

import jakarta.json.JsonValue;

import java.util.Optional;

/**
 * Read-only view of the cluster objects the webhook needs on the request path, served from informer caches
 * (never an API call). {@link #NONE} serves the folder mode, where there is no cluster.
 */
public interface ClusterRefs {
    /** The Namespace manifest, for {@code syntheticRefs.namespace}. */
    Optional<JsonValue> namespace(String name);

    /** The Node manifest, for {@code syntheticRefs.node}. */
    Optional<JsonValue> node(String name);

    /** True for namespaces labelled {@code admission.remold.io/ignore=true}. */
    boolean ignored(String namespace);

    ClusterRefs NONE = new ClusterRefs() {
        @Override
        public Optional<JsonValue> namespace(String name) {
            return Optional.empty();
        }

        @Override
        public Optional<JsonValue> node(String name) {
            return Optional.empty();
        }

        @Override
        public boolean ignored(String namespace) {
            return false;
        }
    };
}

package io.remold.cli.preview;

import io.remold.engine.Family.TargetKind;
import jakarta.json.JsonObject;

import java.util.List;
import java.util.Set;

/**
 * Where {@code preview} reads existing objects from: a folder of manifests, or a live cluster (the server module's,
 * so that this module needs no Kubernetes client). Problems are {@link io.remold.cli.UsageException}s: input errors.
 */
public interface ObjectSource extends AutoCloseable {
    /**
     * Hands the objects of {@code kinds} (empty: every kind the source holds, which a cluster refuses) in
     * {@code namespaces} (empty: all; else cluster-scoped objects are left out) to {@code listing}, page by page.
     */
    void list(Set<TargetKind> kinds, Set<String> namespaces, Listing listing);

    /** The Namespace object named {@code name}, or null: what rules read as {@code namespaceRef}. */
    JsonObject namespace(String name);

    @Override
    void close();

    /** What receives a listing. */
    interface Listing {
        /**
         * The list of {@code what} (a kind) starts; when it starts again (the API server expired the list), what
         * its earlier start gave is to be forgotten.
         */
        void start(String what);

        /** The next page of objects, each with apiVersion, kind and metadata.name. */
        void page(List<JsonObject> objects);
    }
}

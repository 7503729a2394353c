package io.remold.cli.eval;

import io.remold.engine.ReferenceException;
import io.remold.engine.ReferenceQuery;
import io.remold.engine.ReferenceResolver;
import io.remold.engine.ReferenceScope;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code eval}'s cluster: the objects of the {@code --cluster} files, looked up as the server's caches are, by
 * apiVersion, kind, namespace (none for the built-in cluster-scoped kinds) and name or label selector, with the
 * server's scope rules (a namespaced rule reads no cluster-scoped kind). An object without a namespace is in
 * {@code default}, as kubectl would create it.
 */
record ClusterObjects(List<Path> files, List<JsonObject> objects) implements ReferenceResolver {
    /** Reads every file now, so that a broken one is an input error (exit 2) before any rule runs. */
    static ClusterObjects read(List<Path> files) {
        var objects = new ArrayList<JsonObject>();
        files.forEach(file -> objects.addAll(Manifests.objects("--cluster", file)));
        return new ClusterObjects(List.copyOf(files), List.copyOf(objects));
    }

    @Override
    public Resolution resolve(ReferenceQuery query) {
        ReferenceScope.builtInRefusal(query.apiVersion(), query.kind(), query.clusterWide()).ifPresent(why -> {
            throw new ReferenceException(why);
        });
        String source = "--cluster " + String.join(", ", files.stream().map(Path::toString).toList());
        boolean clusterScoped = ReferenceScope.BUILT_IN_CLUSTER_SCOPED_KINDS.contains(query.kind());
        if (!clusterScoped && ReferenceScope.noNamespace(query)) {
            return new Resolution(query.name() != null ? null : JsonValue.EMPTY_JSON_ARRAY, source + ", no namespace");
        }
        Stream<JsonObject> candidates = objects.stream()
                .filter(o -> o.getString("apiVersion", "").equals(query.apiVersion())
                        && o.getString("kind", "").equals(query.kind())
                        && (clusterScoped || namespace(o).equals(query.namespace())));
        if (query.name() != null) {
            return new Resolution(candidates.filter(o -> query.name().equals(metadata(o, "name"))).findFirst()
                    .orElse(null), source);
        }
        return new Resolution(ReferenceScope.byName(candidates.filter(o -> query.selector().matches(labels(o)))),
                source);
    }

    private static String namespace(JsonObject object) {
        String namespace = metadata(object, "namespace");
        return namespace.isEmpty() ? "default" : namespace;
    }

    private static String metadata(JsonObject object, String field) {
        return object.get("metadata") instanceof JsonObject metadata && metadata.get(field) instanceof JsonString s
                ? s.getString() : "";
    }

    private static Map<String, String> labels(JsonObject object) {
        var labels = new HashMap<String, String>();
        if (object.get("metadata") instanceof JsonObject metadata && metadata.get("labels") instanceof JsonObject l) {
            l.forEach((key, value) -> {
                if (value instanceof JsonString s) {
                    labels.put(key, s.getString());
                }
            });
        }
        return labels;
    }
}

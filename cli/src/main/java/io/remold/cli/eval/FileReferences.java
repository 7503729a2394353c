package io.remold.cli.eval;

import io.remold.cli.UsageException;
import io.remold.engine.ReferenceQuery;
import io.remold.engine.ReferenceResolver;
import io.remold.engine.ReferenceScope;
import jakarta.json.JsonObject;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code eval}'s references: {@code --ref NAME=FILE} answers every rule's reference called NAME, whatever kind and
 * name it asks for, so a rule can be tried against any object offline. A by-name reference takes the file's one
 * object; a selector reference takes all of its objects (documents, or the items of a List), sorted by name as the
 * server sorts them. A reference without such a file is looked up in the {@code --cluster} objects, when given.
 */
record FileReferences(Map<String, Path> files, Map<String, List<JsonObject>> objects, ClusterObjects cluster)
        implements ReferenceResolver {
    /** Reads every file now, so that a broken one is an input error (exit 2) before any rule runs. */
    static FileReferences read(Map<String, Path> files, ClusterObjects cluster) {
        var objects = new TreeMap<String, List<JsonObject>>();
        files.forEach((name, file) -> objects.put(name, Manifests.objects("--ref " + name, file)));
        return new FileReferences(Map.copyOf(files), Map.copyOf(objects), cluster);
    }

    @Override
    public Resolution resolve(ReferenceQuery query) {
        List<JsonObject> found = objects.get(query.reference());
        if (found == null) {
            return cluster.files().isEmpty() ? new Resolution(null, "no --ref " + query.reference() + "=FILE")
                    : cluster.resolve(query);
        }
        String source = "--ref " + query.reference() + "=" + files.get(query.reference());
        if (query.selector() != null) {
            return new Resolution(ReferenceScope.byName(found.stream()), source);
        }
        if (found.size() != 1) {
            throw new UsageException(source + ": reference " + query.reference() + " names one object, the file has "
                    + found.size());
        }
        return new Resolution(found.getFirst(), source);
    }
}

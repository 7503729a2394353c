package io.remold.server.eval;

import io.remold.engine.ReferenceQuery;
import io.remold.engine.ReferenceResolver;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code eval}'s references: {@code --ref NAME=FILE} answers every rule's reference called NAME, whatever kind and
 * name it asks for, so a rule can be tried against any object offline. A by-name reference takes the file's one
 * object; a selector reference takes all of its objects (documents, or the items of a List).
 */
record FileReferences(Map<String, Path> files, Map<String, List<JsonObject>> objects) implements ReferenceResolver {
    private static final JsonProvider JSON = JsonProvider.provider();

    /** Reads every file now, so that a broken one is an input error (exit 2) before any rule runs. */
    static FileReferences read(Map<String, Path> files) {
        var objects = new TreeMap<String, List<JsonObject>>();
        files.forEach((name, file) -> objects.put(name, objects(name, file)));
        return new FileReferences(Map.copyOf(files), Map.copyOf(objects));
    }

    @Override
    public Resolution resolve(ReferenceQuery query) {
        List<JsonObject> found = objects.get(query.reference());
        if (found == null) {
            return new Resolution(null, "no --ref " + query.reference() + "=FILE");
        }
        String source = "--ref " + query.reference() + "=" + files.get(query.reference());
        if (query.selector() != null) {
            var list = JSON.createArrayBuilder();
            found.forEach(list::add);
            return new Resolution(list.build(), source);
        }
        if (found.size() != 1) {
            throw new EvalException(source + ": reference " + query.reference() + " names one object, the file has "
                    + found.size());
        }
        return new Resolution(found.getFirst(), source);
    }

    private static List<JsonObject> objects(String name, Path file) {
        String flag = "--ref " + name;
        var out = new java.util.ArrayList<JsonObject>();
        List<JsonValue> documents = EvalCommand.documents(flag, file);
        for (int i = 0; i < documents.size(); i++) {
            if (!(documents.get(i) instanceof JsonObject object)) {
                throw new EvalException(flag + " " + file + ": document " + (i + 1) + ": expected an object");
            }
            if (object.get("items") instanceof JsonArray items && object.getString("kind", "").endsWith("List")) {
                for (int k = 0; k < items.size(); k++) {
                    if (!(items.get(k) instanceof JsonObject item)) {
                        throw new EvalException(flag + " " + file + ": document " + (i + 1) + ": items[" + k
                                + "]: expected an object");
                    }
                    out.add(item);
                }
            } else {
                out.add(object);
            }
        }
        return List.copyOf(out);
    }
}

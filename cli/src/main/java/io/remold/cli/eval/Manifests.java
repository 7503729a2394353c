package io.remold.cli.eval;

import io.remold.api.YamlJson;
import io.remold.cli.UsageException;
import io.remold.engine.ReferenceScope;
import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParsingException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The manifests the offline commands read (resources, old objects, references, answers): YAML or JSON files, each
 * problem an input error naming the flag (or suite field) and the file.
 */
public final class Manifests {
    private Manifests() {
    }

    /** One object from a YAML or JSON file. */
    public static JsonObject object(String flag, Path file) {
        List<JsonValue> documents = documents(flag, file);
        if (documents.size() != 1) {
            throw new UsageException(flag + " " + file + ": expected one YAML or JSON document, found "
                    + documents.size());
        }
        if (!(documents.getFirst() instanceof JsonObject object)) {
            throw new UsageException(flag + " " + file + ": expected an object, got "
                    + documents.getFirst().getValueType().name().toLowerCase());
        }
        return object;
    }

    /**
     * The YAML or JSON documents of a file given with {@code flag}; an unreadable file is an input error. JSON (a
     * {@code .json} file, or text that starts with { or [) is read as the server reads a request, into a compact
     * tree: YAML's node graph of a 3 MB object would not fit the heap.
     */
    public static List<JsonValue> documents(String flag, Path file) {
        String text;
        try {
            byte[] bytes = Files.readAllBytes(file);
            boolean jsonFile = file.getFileName().toString().endsWith(".json");
            if (jsonFile || looksLikeJson(bytes)) {
                try {
                    return List.of(JsonTree.parse(bytes));
                } catch (JsonParsingException e) {
                    if (jsonFile) {
                        throw new UsageException(flag + " " + file + ": " + e.getMessage());
                    }
                    // a YAML flow mapping ({kind: Pod}) starts like JSON too
                }
            }
            text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (IOException e) {
            throw new UsageException(flag + " " + file + ": cannot read (" + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + ")");
        }
        return YamlJson.parse(text, file.toString());
    }

    private static boolean looksLikeJson(byte[] bytes) {
        for (byte b : bytes) {
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                return b == '{' || b == '[';
            }
        }
        return false;
    }

    /**
     * The object's own namespace; none ("") for the cluster-scoped built-in kinds, so that cluster-wide rules see
     * them as the API server would send them; else {@code default}, as kubectl would use.
     */
    public static String namespaceOf(JsonObject resource) {
        if (resource.get("metadata") instanceof JsonObject metadata
                && metadata.get("namespace") instanceof JsonString ns && !ns.getString().isEmpty()) {
            return ns.getString();
        }
        return ReferenceScope.BUILT_IN_CLUSTER_SCOPED_KINDS.contains(resource.getString("kind", "")) ? "" : "default";
    }

    /** The objects of a file given with {@code flag}: its documents, the items of a List in their place. */
    public static List<JsonObject> objects(String flag, Path file) {
        var out = new ArrayList<JsonObject>();
        List<JsonValue> documents = documents(flag, file);
        for (int i = 0; i < documents.size(); i++) {
            if (!(documents.get(i) instanceof JsonObject object)) {
                throw new UsageException(flag + " " + file + ": document " + (i + 1) + ": expected an object");
            }
            if (object.get("items") instanceof JsonArray items && object.getString("kind", "").endsWith("List")) {
                for (int k = 0; k < items.size(); k++) {
                    if (!(items.get(k) instanceof JsonObject item)) {
                        throw new UsageException(flag + " " + file + ": document " + (i + 1) + ": items[" + k
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

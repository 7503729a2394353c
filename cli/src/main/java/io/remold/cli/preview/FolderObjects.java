package io.remold.cli.preview;

import io.remold.cli.UsageException;
import io.remold.cli.eval.Manifests;
import io.remold.engine.Family.TargetKind;
import io.remold.engine.ReferenceScope;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The objects of manifest files and folders (recursive; {@code .yaml}, {@code .yml}, {@code .json}; the items of a
 * List in its place). One file is held at a time: each listing reads the files again, so a folder larger than the
 * heap can be previewed. Only its Namespace objects are kept, for {@link #namespace}. An object without a namespace,
 * of a kind that is not a built-in cluster-scoped one, is in {@code default}, as kubectl would create it and as
 * {@code eval} decides it.
 */
final class FolderObjects implements ObjectSource {
    private final List<Path> files;
    private final Map<String, JsonObject> namespaces;
    private final List<String> skipped;

    private FolderObjects(List<Path> files, Map<String, JsonObject> namespaces, List<String> skipped) {
        this.files = files;
        this.namespaces = namespaces;
        this.skipped = skipped;
    }

    /** Reads every file once: a broken one is an input error, and a document that is no object is noted. */
    static FolderObjects read(List<Path> paths) {
        var files = new ArrayList<Path>();
        paths.forEach(path -> files.addAll(files(path)));
        var namespaces = new HashMap<String, JsonObject>();
        var skipped = new ArrayList<String>();
        for (Path file : files) {
            for (JsonObject object : objects(file, skipped)) {
                if (object.getString("kind").equals("Namespace") && object.getString("apiVersion").equals("v1")) {
                    namespaces.put(object.getJsonObject("metadata").getString("name"), object);
                }
            }
        }
        return new FolderObjects(List.copyOf(files), Map.copyOf(namespaces), List.copyOf(skipped));
    }

    /** The documents left out, each as {@code FILE: document N[: items[K]]: why}. */
    List<String> skipped() {
        return skipped;
    }

    @Override
    public void list(Set<TargetKind> kinds, Set<String> namespaces, Listing listing) {
        listing.start("");
        for (Path file : files) {
            List<JsonObject> page = objects(file, new ArrayList<>()).stream()
                    .filter(o -> kinds.isEmpty() || kinds.stream().anyMatch(k -> ScanKinds.matches(k,
                            o.getString("apiVersion"), o.getString("kind"))))
                    .filter(o -> namespaces.isEmpty() || namespaces.contains(namespaceOf(o)))
                    .toList();
            if (!page.isEmpty()) {
                listing.page(page);
            }
        }
    }

    @Override
    public JsonObject namespace(String name) {
        return namespaces.get(name);
    }

    @Override
    public void close() {
    }

    private static String namespaceOf(JsonObject object) {
        return object.getJsonObject("metadata").getString("namespace", "");
    }

    private static List<Path> files(Path path) {
        if (Files.isRegularFile(path)) {
            return List.of(path);
        }
        if (!Files.isDirectory(path)) {
            throw new UsageException("--objects " + path + ": no such file or folder");
        }
        try (Stream<Path> walk = Files.walk(path)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> !hidden(path.relativize(p)))
                    .filter(p -> p.getFileName().toString().matches(".*\\.(yaml|yml|json)"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UsageException("--objects " + path + ": cannot read: " + e.getMessage());
        } catch (UncheckedIOException e) {
            throw new UsageException("--objects " + path + ": cannot read: " + e.getCause().getMessage());
        }
    }

    /** Whether a file or a folder on its way is hidden ({@code .git}). */
    private static boolean hidden(Path relative) {
        for (Path part : relative) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    /** A file's objects; what is no object is noted in {@code skipped}. */
    private static List<JsonObject> objects(Path file, List<String> skipped) {
        var out = new ArrayList<JsonObject>();
        List<JsonValue> documents = Manifests.documents("--objects", file);
        for (int d = 0; d < documents.size(); d++) {
            String where = file + ": document " + (d + 1);
            if (documents.get(d) instanceof JsonObject list && list.get("items") instanceof JsonArray items
                    && list.getString("kind", "").endsWith("List")) {
                for (int i = 0; i < items.size(); i++) {
                    add(items.get(i), where + ": items[" + i + "]", out, skipped);
                }
            } else {
                add(documents.get(d), where, out, skipped);
            }
        }
        return out;
    }

    private static void add(JsonValue value, String where, List<JsonObject> out, List<String> skipped) {
        if (!(value instanceof JsonObject object) || !(object.get("apiVersion") instanceof JsonString)
                || !(object.get("kind") instanceof JsonString kind)
                || !(object.get("metadata") instanceof JsonObject metadata)
                || !(metadata.get("name") instanceof JsonString name) || name.getString().isEmpty()) {
            skipped.add(where + ": not a Kubernetes object (apiVersion, kind and metadata.name)");
            return;
        }
        boolean namespaced = !ReferenceScope.BUILT_IN_CLUSTER_SCOPED_KINDS.contains(kind.getString());
        if (namespaced && !(metadata.get("namespace") instanceof JsonString)) {
            out.add(Json.createObjectBuilder(object)
                    .add("metadata", Json.createObjectBuilder(metadata).add("namespace", "default")).build());
        } else {
            out.add(object);
        }
    }
}

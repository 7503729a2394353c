package io.remold.server.existing;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The smallest server-side apply configuration that makes an object what a rule's RFC 6902 patch makes it: the
 * object's identity, each field the patch sets (a list element by its merge keys, so that the API server merges it
 * into the list), and the fields Remold's field manager already owns, with their values (an apply drops, and so
 * removes, the fields its manager owned and no longer names: one manager applies for every rule).
 */
final class ApplyConfiguration {
    /**
     * The merge keys of the associative lists of the built-in kinds ({@code x-kubernetes-list-map-keys}), by list
     * field: the first candidate whose first key the element has. A list of another group, or one not here, is set
     * whole: its strategy is the CRD's schema, which a partial list could replace rather than merge.
     */
    private static final Map<String, List<List<String>>> LIST_KEYS = Map.of(
            "containers", List.of(List.of("name")),
            "initContainers", List.of(List.of("name")),
            "ephemeralContainers", List.of(List.of("name")),
            "env", List.of(List.of("name")),
            "ports", List.of(List.of("containerPort", "protocol"), List.of("port", "protocol")),
            "volumes", List.of(List.of("name")),
            "volumeMounts", List.of(List.of("mountPath")),
            "volumeDevices", List.of(List.of("devicePath")),
            "topologySpreadConstraints", List.of(List.of("topologyKey", "whenUnsatisfiable")),
            "ownerReferences", List.of(List.of("uid")));
    private static final Set<String> BUILT_IN = Set.of("v1", "apps/v1", "batch/v1");

    /** What building it came to. */
    sealed interface Built {
        /** The body to apply. */
        record Config(JsonObject body) implements Built {
        }

        /** The change cannot be made by an apply under the manager: why. */
        record NotExpressible(String why) implements Built {
        }
    }

    /** The fields a patch sets and those it removes, and the object it makes. */
    private record Change(FieldSet sets, List<Removal> removes, JsonObject patched) {
    }

    private record Removal(String pointer, List<String> path) {
    }

    private ApplyConfiguration() {
    }

    /**
     * The configuration that applies {@code patch} to {@code object} (as stored, with its managedFields) under
     * {@code manager}; not expressible when the patch does not apply, or removes a field the manager does not
     * own alone (server-side apply removes only those).
     */
    static Built of(JsonObject object, JsonArray patch, String manager) {
        Change change;
        try {
            change = change(object, patch);
        } catch (RuntimeException e) { // JsonException and the like: a patch that does not fit the object
            return new Built.NotExpressible("the patch does not apply to the object as stored: " + e.getMessage());
        }
        var owners = ManagedFields.of(object);
        FieldSet ours = owners.of(manager);
        for (Removal removal : change.removes()) {
            var path = removal.path();
            var other = owners.byManager().entrySet().stream()
                    .filter(e -> !e.getKey().equals(manager) && e.getValue().holds(path)).findFirst();
            if (!ours.holds(path) || other.isPresent()) {
                return new Built.NotExpressible("the patch removes " + removal.pointer() + ", which server-side apply"
                        + " removes only when " + manager + " alone owns it"
                        + other.map(e -> " (" + e.getKey() + " owns it)").orElse(""));
            }
        }
        if (change.sets().isEmpty() && change.removes().isEmpty()) {
            return new Built.NotExpressible("the patch changes nothing");
        }
        var fields = identity();
        fields.add(change.sets());
        fields.add(ours);
        return new Built.Config(fields.extract(change.patched()).asJsonObject());
    }

    /**
     * Another manager that owns a field the patch sets, with the field: server-side apply without force refuses
     * such a change (a conflict), so Remold reports it rather than writing.
     */
    static Optional<Map.Entry<String, String>> owner(JsonObject object, JsonArray patch, String manager) {
        try {
            return ManagedFields.of(object).otherOwner(manager, change(object, patch).sets());
        } catch (RuntimeException e) { // JsonException and the like: a patch that does not fit the object
            return Optional.empty();
        }
    }

    private static FieldSet identity() {
        var fields = new FieldSet();
        fields.child("f:apiVersion").setWhole();
        fields.child("f:kind").setWhole();
        var metadata = fields.child("f:metadata");
        metadata.child("f:name").setWhole();
        metadata.child("f:namespace").setWhole();
        return fields;
    }

    /** Runs the patch op by op: a field an op sets is found in the object after it, one it removes before it. */
    private static Change change(JsonObject object, JsonArray patch) {
        boolean builtIn = BUILT_IN.contains(object.getString("apiVersion", ""));
        var sets = new FieldSet();
        var removes = new ArrayList<Removal>();
        JsonStructure doc = object;
        for (JsonValue value : patch) {
            JsonObject op = value.asJsonObject();
            String path = op.getString("path");
            String kind = op.getString("op");
            String removed = "remove".equals(kind) ? path : "move".equals(kind) ? op.getString("from") : null;
            var removedPath = removed == null ? null : fieldPath(doc, removed, builtIn);
            doc = Json.createPatch(Json.createArrayBuilder().add(op).build()).apply(doc);
            if (removedPath != null && removedPath.size() < tokens(removed).size()) {
                include(sets, removedPath); // an element of a list set whole: the list is set without it
            } else if (removedPath != null) {
                removes.add(new Removal(removed, removedPath));
            }
            if (Set.of("add", "replace", "copy", "move").contains(kind)) {
                include(sets, fieldPath(doc, path, builtIn));
            }
        }
        return new Change(sets, removes, doc.asJsonObject());
    }

    private static void include(FieldSet set, List<String> path) {
        FieldSet node = set;
        for (String key : path) {
            node = node.child(key);
        }
        node.setWhole();
    }

    /**
     * The set keys of the field at {@code pointer} in {@code doc}: a list element by its merge keys; where the
     * element has none (or the pointer goes below a value that is not an object), the path stops there and the
     * whole value is meant.
     */
    private static List<String> fieldPath(JsonStructure doc, String pointer, boolean builtIn) {
        var path = new ArrayList<String>();
        JsonValue at = doc;
        String field = null;
        for (String token : tokens(pointer)) {
            if (at instanceof JsonObject object) {
                path.add("f:" + token);
                field = token;
                at = object.get(token);
            } else if (at instanceof JsonArray array) {
                int index = "-".equals(token) ? array.size() - 1 : Integer.parseInt(token);
                JsonValue element = index >= 0 && index < array.size() ? array.get(index) : null;
                Optional<JsonObject> keys = builtIn && element instanceof JsonObject e ? mergeKeys(field, e)
                        : Optional.empty();
                if (keys.isEmpty()) {
                    return path;
                }
                path.add(FieldSet.keyed(keys.get()));
                field = null;
                at = element;
            } else {
                return path;
            }
        }
        return path;
    }

    private static Optional<JsonObject> mergeKeys(String field, JsonObject element) {
        for (List<String> candidate : LIST_KEYS.getOrDefault(field, List.of())) {
            if (element.containsKey(candidate.getFirst())) {
                var keys = Json.createObjectBuilder();
                candidate.stream().filter(element::containsKey).forEach(k -> keys.add(k, element.get(k)));
                return Optional.of(keys.build());
            }
        }
        return Optional.empty();
    }

    private static List<String> tokens(String pointer) {
        if (pointer.isEmpty()) {
            return List.of();
        }
        if (!pointer.startsWith("/")) {
            throw new IllegalArgumentException("a JSON pointer starts with /: " + pointer);
        }
        return java.util.Arrays.stream(pointer.substring(1).split("/", -1))
                .map(t -> t.replace("~1", "/").replace("~0", "~")).toList();
    }
}

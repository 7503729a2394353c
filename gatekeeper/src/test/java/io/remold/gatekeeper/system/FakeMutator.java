package io.remold.gatekeeper.system;

import io.remold.gatekeeper.match.GroupVersionKind;
import io.remold.gatekeeper.mutators.Mutable;
import io.remold.gatekeeper.mutators.MutationException;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.mutators.MutatorId;
import io.remold.gatekeeper.mutators.SchemaBinding;
import io.remold.gatekeeper.path.Location;
import io.remold.gatekeeper.path.PathNode;
import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The corpus' fake mutators: it always matches; with {@code labels} it sets them on every call (appending the call
 * count while that is below {@code unstableFor}), without it changes nothing; with {@code error} it fails. For the
 * schema cases it has a location, kinds × operations and an external-data flag.
 */
record FakeMutator(MutatorId id, List<PathNode> path, List<SchemaBinding> schemaBindings, boolean usesExternalData,
                   Map<String, String> labels, int unstableFor, String error, AtomicInteger calls) implements Mutator {
    private static final JsonProvider JSON = JsonProvider.provider();

    /** Reads a fake as the corpus describes one ({@code id}, {@code location}, {@code gvks}, ...). */
    static FakeMutator of(JsonObject spec) {
        List<String> operations = spec.containsKey("operations")
                ? spec.getJsonArray("operations").getValuesAs(JsonString.class).stream().map(JsonString::getString)
                .toList()
                : List.of("CREATE", "UPDATE");
        var bindings = new ArrayList<SchemaBinding>();
        if (spec.get("gvks") instanceof JsonArray gvks) {
            for (JsonValue v : gvks) {
                JsonObject g = v.asJsonObject();
                var gvk = new GroupVersionKind(g.getString("group"), g.getString("version"), g.getString("kind"));
                operations.forEach(op -> bindings.add(new SchemaBinding(gvk, op)));
            }
        }
        Map<String, String> labels = null;
        if (spec.get("labels") instanceof JsonObject l) {
            labels = new LinkedHashMap<>();
            for (var e : l.entrySet()) {
                labels.put(e.getKey(), ((JsonString) e.getValue()).getString());
            }
        }
        return new FakeMutator(id(spec.getJsonObject("id")),
                spec.containsKey("location") ? Location.parse(spec.getString("location")) : List.of(),
                List.copyOf(bindings), spec.getBoolean("usesExternalData", false), labels,
                spec.getInt("unstableFor", 0), spec.getString("mutate_error", null), new AtomicInteger());
    }

    /** A fake that is only an id, for ordering. */
    static FakeMutator withId(MutatorId id) {
        return new FakeMutator(id, List.of(), List.of(), false, null, 0, null, new AtomicInteger());
    }

    static MutatorId id(JsonObject id) {
        return new MutatorId(id.getString("group"), id.getString("kind"), id.getString("namespace"),
                id.getString("name"));
    }

    @Override
    public boolean matches(Mutable mutable) {
        return true;
    }

    @Override
    public JsonObject mutate(Mutable mutable) throws MutationException {
        if (error != null) {
            throw new MutationException(error);
        }
        JsonObject object = mutable.object();
        if (labels == null) {
            return object;
        }
        int call = calls.incrementAndGet();
        JsonObject metadata = object.get("metadata") instanceof JsonObject m ? m : JsonValue.EMPTY_JSON_OBJECT;
        JsonObject current = metadata.get("labels") instanceof JsonObject l ? l : JsonValue.EMPTY_JSON_OBJECT;
        JsonObject next = current;
        for (var e : labels.entrySet()) {
            String value = call < unstableFor ? e.getValue() + call : e.getValue();
            next = JsonTree.with(next, e.getKey(), JSON.createValue(value));
        }
        return next.equals(current) ? object
                : JsonTree.with(object, "metadata", JsonTree.with(metadata, "labels", next));
    }
}

package io.remold.gatekeeper.mutators;

import io.remold.api.JsonFields;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.gatekeeper.match.ApplyTo;
import io.remold.gatekeeper.match.InvalidMatchException;
import io.remold.gatekeeper.match.Match;
import io.remold.gatekeeper.path.Location;
import io.remold.gatekeeper.path.LocationSyntaxException;
import io.remold.gatekeeper.path.PathNode;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Reads Gatekeeper mutator manifests ({@code mutations.gatekeeper.sh} v1, v1beta1, v1alpha1), and holds the manifest
 * checks the kinds share.
 */
public final class Mutators {
    /** The four kinds this module reads. */
    public static final List<String> KINDS = List.of("Assign", "AssignMetadata", "ModifySet", "AssignImage");

    private static final int MAX_NAME_BYTES = 63;

    private Mutators() {
    }

    /**
     * Compiles one manifest, or throws {@link InvalidMutatorException} with the field and the reason Gatekeeper gives.
     * The checks run in Gatekeeper's order where it has one (name, location syntax, then each kind's own checks),
     * so a manifest with several faults reports the one Gatekeeper reports.
     */
    public static Mutator parse(JsonObject manifest) {
        String apiVersion = string(manifest, "apiVersion", "apiVersion");
        int slash = apiVersion.indexOf('/');
        if (slash < 0 || !apiVersion.substring(0, slash).equals(Gatekeeper.GROUP)
                || !Gatekeeper.VERSIONS.contains(apiVersion.substring(slash + 1))) {
            throw new InvalidMutatorException("apiVersion", "unsupported apiVersion \"" + apiVersion
                    + "\": expected " + Gatekeeper.GROUP + "/ with a version of " + Gatekeeper.VERSIONS);
        }
        String kind = string(manifest, "kind", "kind");
        if (!KINDS.contains(kind)) {
            throw new InvalidMutatorException("kind", "unsupported kind \"" + kind + "\": expected one of " + KINDS);
        }
        JsonObject metadata = object(manifest, "metadata", "metadata");
        String name = string(metadata, "name", "metadata.name");
        // Gatekeeper counts bytes: the name becomes a label value.
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            throw new InvalidMutatorException("metadata.name", "maximum name length is 63 characters");
        }
        var id = new MutatorId(Gatekeeper.GROUP, kind, string(metadata, "namespace", "metadata.namespace"), name);

        JsonObject spec = object(manifest, "spec", "spec");
        String location = string(spec, "location", "spec.location");
        List<PathNode> path;
        try {
            path = Location.parse(location);
        } catch (LocationSyntaxException e) {
            throw new InvalidMutatorException("spec.location", "invalid location format: " + e.getMessage());
        }
        // AssignMetadata has no applyTo in any version: like Gatekeeper's decoding, ignore one if present.
        List<ApplyTo> applyTo = kind.equals("AssignMetadata") ? List.of()
                : fromMatchPackage("spec.applyTo", () -> ApplyTo.parseList(array(spec, "applyTo", "spec.applyTo")));
        Match match = fromMatchPackage("spec.match", () -> Match.parse(object(spec, "match", "spec.match")));
        var mutatorSpec = new MutatorSpec(id, applyTo, match, location, path,
                object(spec, "parameters", "spec.parameters"));
        return switch (kind) {
            case "Assign" -> Assign.create(mutatorSpec);
            case "AssignMetadata" -> AssignMetadata.create(mutatorSpec);
            case "ModifySet" -> ModifySet.create(mutatorSpec);
            case "AssignImage" -> AssignImage.create(mutatorSpec);
            default -> throw new IllegalStateException(kind); // KINDS was checked above
        };
    }

    /**
     * The kinds and operations of a kind with a schema (all but AssignMetadata), checked as Gatekeeper does: every
     * applyTo entry names groups, versions and kinds, and there is at least one.
     */
    static List<SchemaBinding> schemaBindings(MutatorSpec spec) {
        MutatorId id = spec.id();
        for (int i = 0; i < spec.applyTo().size(); i++) {
            ApplyTo entry = spec.applyTo().get(i);
            if (entry.groups().isEmpty() || entry.versions().isEmpty() || entry.kinds().isEmpty()) {
                throw new InvalidMutatorException("spec.applyTo[" + i + "]", "invalid applyTo for " + id.kind()
                        + " mutator " + id.name() + ", all of group, version and kind must be specified");
            }
        }
        var bindings = new ArrayList<SchemaBinding>();
        for (ApplyTo.Binding binding : ApplyTo.bindings(spec.applyTo())) {
            bindings.add(new SchemaBinding(binding.gvk(), binding.operation()));
        }
        if (bindings.isEmpty()) {
            throw new InvalidMutatorException("spec.applyTo", "applyTo required for " + id.kind() + " mutator "
                    + id.name());
        }
        return List.copyOf(bindings);
    }

    /** Whether the location starts at {@code metadata}, which only AssignMetadata may change. */
    static boolean startsAtMetadata(List<PathNode> path) {
        return !path.isEmpty() && path.getFirst().equals(new PathNode.Field("metadata"));
    }

    /**
     * Refuses an empty location, and one ending in a field of a keyed-list element that is the list's key ({@code
     * containers[name: foo].name}) or in a list directly under a list element.
     */
    static void requireKeyUnchanged(List<PathNode> path) {
        if (path.isEmpty()) {
            throw new InvalidMutatorException("spec.location", "empty path");
        }
        if (path.size() < 2 || !(path.get(path.size() - 2) instanceof PathNode.KeyedList list)) {
            return;
        }
        if (!(path.getLast() instanceof PathNode.Field field)) {
            throw new InvalidMutatorException("spec.location", "invalid path format: child of a list can't be a list");
        }
        if (field.name().equals(list.keyField())) {
            throw new InvalidMutatorException("spec.location",
                    "invalid path format: changing the item key is not allowed");
        }
    }

    /** A string member ({@code ""} when absent or null); {@code field} names it in the error. */
    static String string(JsonObject object, String key, String field) {
        return JsonFields.string(object, key, "",
                v -> new InvalidMutatorException(field, "must be a string, not " + v.getValueType()));
    }

    /** An object member (empty when absent or null); {@code field} names it in the error. */
    static JsonObject object(JsonObject object, String key, String field) {
        return JsonFields.member(object, key, JsonObject.class, JsonValue.EMPTY_JSON_OBJECT,
                v -> new InvalidMutatorException(field, "must be an object, not " + v.getValueType()));
    }

    /** An array member, or null when absent or null; {@code field} names it in the error. */
    static JsonArray array(JsonObject object, String key, String field) {
        return JsonFields.member(object, key, JsonArray.class, null,
                v -> new InvalidMutatorException(field, "must be a list, not " + v.getValueType()));
    }

    /** Runs a parse of the match package, naming the offending field from the manifest's root in its error. */
    private static <T> T fromMatchPackage(String block, Supplier<T> parse) {
        try {
            return parse.get();
        } catch (InvalidMatchException e) {
            String field = e.field().isEmpty() || e.field().startsWith("[") ? block + e.field()
                    : block + "." + e.field();
            throw new InvalidMutatorException(field, e.reason());
        }
    }
}

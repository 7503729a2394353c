package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.path.PathNode;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.List;

/**
 * Gatekeeper's AssignMetadata: adds one label or annotation ({@code metadata.labels.<key>} or {@code
 * metadata.annotations.<key>}) with a string value, and never changes one that exists. It has no applyTo: match alone
 * selects the objects, and it takes no part in schema conflicts.
 */
final class AssignMetadata {
    private static final List<PathNode> LABELS = List.of(new PathNode.Field("metadata"), new PathNode.Field("labels"));
    private static final List<PathNode> ANNOTATIONS = List.of(new PathNode.Field("metadata"),
            new PathNode.Field("annotations"));

    private AssignMetadata() {
    }

    /** Checks the location and {@code parameters.assign} (a string value) and compiles. */
    static Mutator create(MutatorSpec spec) {
        String name = spec.id().name();
        List<PathNode> path = spec.path();
        if (path.size() != 3 || !(path.getLast() instanceof PathNode.Field)
                || !(path.subList(0, 2).equals(LABELS) || path.subList(0, 2).equals(ANNOTATIONS))) {
            throw new InvalidMutatorException("spec.location",
                    "invalid location for assignmetadata " + name + ": " + spec.location());
        }
        JsonObject assign = Mutators.object(spec.parameters(), "assign", "spec.parameters.assign");
        AssignField value = AssignField.parse(assign, "spec.parameters.assign");
        if (value.usesExternalData() && !Mutators.string(assign.getJsonObject("externalData"), "dataSource",
                "spec.parameters.assign.externalData.dataSource").equals("Username")) {
            throw new InvalidMutatorException("spec.parameters.assign.externalData.dataSource",
                    "only username data source is supported for assignmetadata " + name);
        }
        if (value.constant() != null && !(value.constant() instanceof JsonString)) {
            throw new InvalidMutatorException("spec.parameters.assign.value",
                    "spec.parameters.assign.value field must be a string for AssignMetadata \"" + name + "\"");
        }
        LocationMutator.Setters setters = value.usesExternalData()
                ? mutable -> value.externalSetter(mutable, spec.id(), path, PathTests.NONE, true)
                : mutable -> new AddOnly(value.value(mutable));
        return new LocationMutator(spec, List.of(), PathTests.NONE, value.usesExternalData(), setters);
    }

    /** Sets the value only where the key is missing. */
    private record AddOnly(JsonValue value) implements Setter {
        @Override
        public JsonValue set(JsonValue current) {
            return current != null ? current : value;
        }
    }
}

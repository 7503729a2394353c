package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.path.PathNode;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.List;

/** Gatekeeper's Assign: sets any field outside metadata, or a whole keyed-list element, to a value. */
final class Assign {
    private static final String ASSIGN = "spec.parameters.assign";

    private Assign() {
    }

    /**
     * Validates Assign's parameters ({@code assign}, {@code pathTests}) and compiles it. The checks run in
     * Gatekeeper's order, so a manifest with several faults reports the one Gatekeeper reports.
     */
    static Mutator create(MutatorSpec spec) {
        List<PathNode> path = spec.path();
        if (Mutators.startsAtMetadata(path)) {
            throw new InvalidMutatorException("spec.location", "assign " + spec.id().name()
                    + " can't change metadata");
        }
        Mutators.requireKeyUnchanged(path);
        AssignField assign = AssignField.parse(Mutators.object(spec.parameters(), "assign", ASSIGN), ASSIGN);
        if (path.getLast() instanceof PathNode.KeyedList list) {
            requireElementValue(list, assign);
        }
        PathTests tests = PathTests.parse(
                Mutators.array(spec.parameters(), "pathTests", "spec.parameters.pathTests"), path);
        LocationMutator.Setters setters = assign.usesExternalData()
                ? mutable -> assign.externalSetter(mutable, spec.id(), path, tests, false)
                : mutable -> new ValueSetter(assign.value(mutable));
        return new LocationMutator(spec, Mutators.schemaBindings(spec), tests, assign.usesExternalData(), setters);
    }

    /**
     * A location ending at a keyed list ({@code spec.containers[name: sidecar]}) adds or replaces a whole element:
     * it must name one element (no glob), and the value must be a constant object carrying that key value.
     */
    private static void requireElementValue(PathNode.KeyedList list, AssignField assign) {
        JsonValue value = assign.constant();
        if (value != null) {
            if (list.glob()) {
                throw new InvalidMutatorException("spec.location", "can't append to a globbed list");
            }
            if (!(value instanceof JsonObject object)) {
                throw new InvalidMutatorException(ASSIGN + ".value", "invalid value: `" + value
                        + "`, only objects can be added to keyed lists");
            }
            if (!Core.hasKey(object, list)) {
                throw new InvalidMutatorException(ASSIGN + ".value", "adding object to list with different key "
                        + list.keyField() + ": list key " + list.keyValue() + ", object key "
                        + object.get(list.keyField()));
            }
        } else if (assign.fromMetadata()) {
            throw new InvalidMutatorException(ASSIGN + ".fromMetadata", "cannot assign a metadata field to a list");
        } else {
            throw new InvalidMutatorException(ASSIGN + ".externalData",
                    "cannot assign external data response to a list");
        }
    }

    /** Sets the field, or the whole keyed-list element, to one value (also Gatekeeper's test DummyMutator). */
    record ValueSetter(JsonValue value) implements Setter {
        @Override
        public JsonValue set(JsonValue current) {
            return value;
        }

        @Override
        public JsonObject keyedListValue() throws MutationException {
            if (value instanceof JsonObject object) {
                return object;
            }
            throw new MutationException("assign.value for a keyed list must be an object, not " + value);
        }
    }
}

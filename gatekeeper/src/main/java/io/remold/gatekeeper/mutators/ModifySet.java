package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.path.PathNode;
import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Gatekeeper's ModifySet: treats the list at its location as a set, and merges {@code parameters.values.fromList}
 * into it (appending each missing item in order) or prunes those items from it (every equal item).
 */
final class ModifySet {
    private ModifySet() {
    }

    /** What to do with the values: {@code parameters.operation}, {@code merge} when unset. */
    enum Operation {
        MERGE, PRUNE;

        /**
         * The list after the operation, given the field's current value ({@code null} when absent): {@code current}
         * itself when nothing changes, {@code null} to leave the field absent. {@code values} is null when {@code
         * fromList} is unset, which differs from an empty list only when merging into an absent field.
         */
        JsonValue apply(JsonValue current, List<JsonValue> values) throws MutationException {
            if (current == null) {
                // Merging creates the list with the values as given, duplicates included (Gatekeeper copies them).
                // With no fromList at all Gatekeeper writes a null, which Kubernetes drops: leave the field absent.
                return this == MERGE && values != null ? JsonTree.array(values) : null;
            }
            if (!(current instanceof JsonArray existing)) {
                throw new MutationException(current + " is not a list of values, cannot treat it as a set");
            }
            List<JsonValue> given = values == null ? List.of() : values;
            var result = new ArrayList<JsonValue>(existing.size() + given.size());
            if (this == MERGE) {
                result.addAll(existing);
                for (JsonValue value : given) {
                    if (result.stream().noneMatch(item -> sameValue(item, value))) {
                        result.add(value);
                    }
                }
            } else {
                for (JsonValue item : existing) {
                    if (given.stream().noneMatch(value -> sameValue(item, value))) {
                        result.add(item);
                    }
                }
            }
            return result.size() == existing.size() ? current : JsonTree.array(result);
        }
    }

    /** Checks the location, operation and values and compiles. */
    static Mutator create(MutatorSpec spec) {
        String name = spec.id().name();
        if (Mutators.startsAtMetadata(spec.path())) {
            throw new InvalidMutatorException("spec.location", "modifyset " + name + " can't change metadata");
        }
        if (!spec.path().isEmpty() && spec.path().getLast() instanceof PathNode.KeyedList) {
            throw new InvalidMutatorException("spec.location",
                    "final node in a modifyset location cannot be a keyed list");
        }
        JsonObject parameters = spec.parameters();
        Operation operation = switch (Mutators.string(parameters, "operation", "spec.parameters.operation")) {
            case "", "merge" -> Operation.MERGE;
            case "prune" -> Operation.PRUNE;
            case String other -> throw new InvalidMutatorException("spec.parameters.operation",
                    "unrecognized operation for modifyset: " + other);
        };
        JsonArray fromList = Mutators.array(Mutators.object(parameters, "values", "spec.parameters.values"),
                "fromList", "spec.parameters.values.fromList");
        List<JsonValue> values = fromList == null ? null : List.copyOf(fromList);
        PathTests tests = PathTests.parse(
                Mutators.array(parameters, "pathTests", "spec.parameters.pathTests"), spec.path());
        Setter setter = current -> operation.apply(current, values);
        return new LocationMutator(spec, Mutators.schemaBindings(spec), tests, false, mutable -> setter);
    }

    /**
     * Gatekeeper's deep equality of decoded JSON: an integer literal (an int64) never equals a number written with a
     * fraction or an exponent (a float64), even of the same value.
     */
    static boolean sameValue(JsonValue a, JsonValue b) {
        if (a.getValueType() != b.getValueType()) {
            return false;
        }
        return switch (a.getValueType()) {
            case NUMBER -> {
                Long x = int64((JsonNumber) a);
                Long y = int64((JsonNumber) b);
                yield x != null || y != null ? Objects.equals(x, y)
                        : ((JsonNumber) a).doubleValue() == ((JsonNumber) b).doubleValue();
            }
            case STRING -> ((JsonString) a).getString().equals(((JsonString) b).getString());
            case ARRAY -> sameItems((JsonArray) a, (JsonArray) b);
            case OBJECT -> sameMembers((JsonObject) a, (JsonObject) b);
            case TRUE, FALSE, NULL -> true;
        };
    }

    private static boolean sameItems(JsonArray a, JsonArray b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!sameValue(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameMembers(JsonObject a, JsonObject b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Map.Entry<String, JsonValue> member : a.entrySet()) {
            JsonValue other = b.get(member.getKey());
            if (other == null || !sameValue(member.getValue(), other)) {
                return false;
            }
        }
        return true;
    }

    /** The number as Kubernetes decodes it into an int64, or null when it decodes into a float64. */
    private static Long int64(JsonNumber number) {
        String text = number.toString();
        if (text.indexOf('.') >= 0 || text.indexOf('e') >= 0 || text.indexOf('E') >= 0) {
            return null;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}

package io.remold.gatekeeper.mutators;

import io.remold.api.JsonFields;
import io.remold.gatekeeper.path.PathNode;
import io.remold.templating.ExternalData;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * {@code parameters.assign} of Assign and AssignMetadata: exactly one of a constant {@code value}, {@code
 * fromMetadata} (the object's name or namespace) or {@code externalData}. A JSON {@code null} counts as not set.
 */
final class AssignField {
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final List<String> METADATA_FIELDS = List.of("name", "namespace");
    private static final List<String> DATA_SOURCES = List.of("ValueAtLocation", "Username");
    private static final List<String> FAILURE_POLICIES = List.of("Fail", "UseDefault", "Ignore");

    /** The constant, or null. */
    private final JsonValue constant;
    /** {@code name} or {@code namespace}, or null. */
    private final String metadataField;
    /** Null unless the value comes from an external data provider. */
    private final ExternalDataSpec externalData;

    private AssignField(JsonValue constant, String metadataField, ExternalDataSpec externalData) {
        this.constant = constant;
        this.metadataField = metadataField;
        this.externalData = externalData;
    }

    /**
     * Parses and validates; {@code field} names the block in errors ({@code spec.parameters.assign}); a missing block
     * (null) is refused like an empty one.
     */
    static AssignField parse(JsonObject assign, String field) {
        JsonObject block = assign == null ? JsonValue.EMPTY_JSON_OBJECT : assign;
        JsonValue constant = present(block, "value");
        JsonValue fromMetadata = present(block, "fromMetadata");
        JsonValue externalData = present(block, "externalData");
        long set = Stream.of(constant, fromMetadata, externalData).filter(Objects::nonNull).count();
        if (set == 0) {
            throw new InvalidMutatorException(field,
                    "invalid assign field: one of `value`, `fromMetadata` or `externalData` must be set");
        }
        if (set > 1) {
            throw new InvalidMutatorException(field,
                    "invalid assign field: only one of `value`, `fromMetadata` or `externalData` may be set");
        }
        if (fromMetadata != null) {
            return new AssignField(null, metadataField(fromMetadata, field + ".fromMetadata"), null);
        }
        if (externalData != null) {
            return new AssignField(null, null, ExternalDataSpec.parse(externalData, field + ".externalData"));
        }
        return new AssignField(constant, null, null);
    }

    /** The value to assign for this request, when it does not come from external data. */
    JsonValue value(Mutable mutable) {
        if (metadataField == null) {
            return constant;
        }
        JsonValue metadata = mutable.object().get("metadata");
        String value = metadata instanceof JsonObject object ? object.getString(metadataField, "") : "";
        return JSON.createValue(value);
    }

    /**
     * The setter of an {@code externalData} assign for this request, or null when no location needs a value. As in
     * Gatekeeper (its setter's placeholder, resolved by {@code mutateWithExternalData}), every location the path
     * reaches gets a value, missing ones included (pathTests {@code MustExist} prevents that); its key is the string
     * at the location, or when nothing is there the requesting user's name ({@code Username}) or {@code ""}
     * ({@code ValueAtLocation}); any other value there (a number, an object, null) fails the mutation. All keys go in
     * one fetch. A string answer is assigned; for a failed key, or an answer that is not a string, {@code
     * failurePolicy} decides: {@code Fail} fails the mutation, {@code Ignore} assigns the key itself, {@code
     * UseDefault} assigns {@code default}. A location holding what this mutator assigned in an earlier pass of the
     * request is left alone, so that the mutation loop converges (Gatekeeper resolves its placeholders once).
     * {@code onlyWhereAbsent}: AssignMetadata, which never changes a value that exists.
     */
    Setter externalSetter(Mutable mutable, MutatorId mutator, List<PathNode> path, PathTests tests,
                          boolean onlyWhereAbsent) throws MutationException {
        ExternalDataSpec spec = externalData;
        Set<JsonValue> assigned = mutable.external().assigned(mutator);
        // A snapshot: what this pass assigns must not hide a later location that holds the same value.
        Set<JsonValue> earlier = Set.copyOf(assigned);
        Predicate<JsonValue> needsValue = current -> current == null || !onlyWhereAbsent && !earlier.contains(current);
        var keys = new LinkedHashSet<String>();
        Core.mutate(path, tests, current -> {
            if (needsValue.test(current)) {
                keys.add(spec.key(current, mutable.username()));
            }
            return current;
        }, mutable.object());
        if (keys.isEmpty()) {
            return null;
        }
        Map<String, ExternalData.Answer> answers = mutable.external().fetch(mutator, spec.provider(), keys);
        return current -> {
            if (!needsValue.test(current)) {
                return current;
            }
            String key = spec.key(current, mutable.username());
            JsonValue value = spec.resolve(key, answers.get(key));
            assigned.add(value);
            return value;
        };
    }

    boolean usesExternalData() {
        return externalData != null;
    }

    /** The constant {@code value}, or null when the value comes from metadata or external data. */
    JsonValue constant() {
        return constant;
    }

    boolean fromMetadata() {
        return metadataField != null;
    }

    private static JsonValue present(JsonObject block, String key) {
        JsonValue value = block.get(key);
        return value == JsonValue.NULL ? null : value;
    }

    private static String metadataField(JsonValue fromMetadata, String field) {
        if (!(fromMetadata instanceof JsonObject object)) {
            throw new InvalidMutatorException(field, "must be an object");
        }
        JsonValue name = object.get("field");
        String text = name instanceof JsonString string ? string.getString() : "";
        if (!METADATA_FIELDS.contains(text)) {
            throw new InvalidMutatorException(field + ".field",
                    "invalid fromMetadata field: \"" + text + "\" is neither name nor namespace");
        }
        return text;
    }

    /** {@code externalData}, validated as Gatekeeper's CRD and webhook do, with the CRD's defaults. */
    private record ExternalDataSpec(String provider, String dataSource, String failurePolicy, String defaultValue) {
        static ExternalDataSpec parse(JsonValue value, String field) {
            if (!(value instanceof JsonObject object)) {
                throw new InvalidMutatorException(field, "must be an object");
            }
            if (!object.containsKey("provider")) {
                throw new InvalidMutatorException(field + ".provider", "required");
            }
            String provider = string(object, "provider", "", field);
            String dataSource = oneOf(object, "dataSource", DATA_SOURCES, field);
            String failurePolicy = oneOf(object, "failurePolicy", FAILURE_POLICIES, field);
            String defaultValue = string(object, "default", "", field);
            if (failurePolicy.equals("UseDefault") && defaultValue.isEmpty()) {
                throw new InvalidMutatorException(field + ".default",
                        "`default` must not be empty when `failurePolicy` is set to `UseDefault`");
            }
            return new ExternalDataSpec(provider, dataSource, failurePolicy, defaultValue);
        }

        /**
         * The key sent for a location's current value ({@code null} when absent), as Gatekeeper's setter takes it: the
         * string there, else the user name ({@code Username}) or {@code ""}; any other value is refused.
         */
        String key(JsonValue current, String username) throws MutationException {
            if (current == null) {
                return dataSource.equals("Username") ? username : "";
            }
            if (current instanceof JsonString string) {
                return string.getString();
            }
            throw new MutationException("externalData provider \"" + provider
                    + "\": the value at the location must be a string to be sent as a key, not " + current);
        }

        /** The value to assign for {@code key}: a string answer, or what {@code failurePolicy} says. */
        JsonValue resolve(String key, ExternalData.Answer answer) throws MutationException {
            String error = answer == null ? "the provider gave no answer"
                    : answer.failed() ? answer.error()
                    : answer.value() instanceof JsonString ? null
                    : "the answer must be a string, not " + answer.value();
            if (error == null) {
                return answer.value();
            }
            return switch (failurePolicy) {
                case "Ignore" -> JSON.createValue(key);
                case "UseDefault" -> JSON.createValue(defaultValue);
                default -> throw new MutationException("externalData provider \"" + provider + "\" key "
                        + JSON.createValue(key) + ": " + error);
            };
        }

        /** The value, or the first allowed one (the CRD's default) when absent. */
        private static String oneOf(JsonObject object, String key, List<String> allowed, String field) {
            String value = string(object, key, allowed.getFirst(), field);
            if (!allowed.contains(value)) {
                throw new InvalidMutatorException(field + "." + key,
                        "unsupported value \"" + value + "\": must be one of " + String.join(", ", allowed));
            }
            return value;
        }

        private static String string(JsonObject object, String key, String absent, String field) {
            return JsonFields.string(object, key, absent,
                    v -> new InvalidMutatorException(field + "." + key, "must be a string"));
        }
    }
}

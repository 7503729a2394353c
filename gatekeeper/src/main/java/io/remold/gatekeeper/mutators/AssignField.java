package io.remold.gatekeeper.mutators;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.util.List;
import java.util.Objects;
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
    private final ExternalData externalData;

    private AssignField(JsonValue constant, String metadataField, ExternalData externalData) {
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
            return new AssignField(null, null, ExternalData.parse(externalData, field + ".externalData"));
        }
        return new AssignField(constant, null, null);
    }

    /** The value to assign for this request. */
    JsonValue value(Mutable mutable) throws MutationException {
        if (externalData != null) {
            throw new MutationException("external data providers are not supported yet (provider "
                    + externalData.provider() + ")");
        }
        if (metadataField == null) {
            return constant;
        }
        JsonValue metadata = mutable.object().get("metadata");
        String value = metadata instanceof JsonObject object ? object.getString(metadataField, "") : "";
        return JSON.createValue(value);
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
    private record ExternalData(String provider, String dataSource, String failurePolicy, String defaultValue) {
        static ExternalData parse(JsonValue value, String field) {
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
            return new ExternalData(provider, dataSource, failurePolicy, defaultValue);
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
            JsonValue value = object.get(key);
            if (value == null || value == JsonValue.NULL) {
                return absent;
            }
            if (value instanceof JsonString string) {
                return string.getString();
            }
            throw new InvalidMutatorException(field + "." + key, "must be a string");
        }
    }
}

package io.remold.kinitiras.cue;

import io.remold.cue.CompiledCue;
import io.remold.cue.CueEvaluator.CueParameter;
import io.remold.cue.CueException;
import io.remold.kinitiras.GoDecoding;
import io.remold.kinitiras.Overrider;
import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;

/**
 * An override rule's {@code cue}, given {@code object}; its {@code patches} are the JSON patch operations, read as
 * kinitiras decodes them into {@code {op, path, value}}.
 */
public final class CueOverrider implements Overrider {
    private static final JsonProvider JSON = JsonProvider.provider();
    private final CueSettings settings;
    private final CompiledCue cue;

    private CueOverrider(CueSettings settings, CompiledCue cue) {
        this.settings = settings;
        this.cue = cue;
    }

    /** {@code overriders.cue}: evaluated with the parameter {@code object}. */
    public static CueOverrider cue(CueSettings settings, String text) throws CueException {
        return new CueOverrider(settings, settings.evaluator().compile(text, settings.owner()));
    }

    @Override
    public List<JsonObject> patches(PolicyInput input) throws PolicyEvaluationException {
        String field = "overriders.cue";
        return decode(CueRun.evaluate(settings, cue, input, List.of(new CueParameter(CueRun.OBJECT, input.object())),
                "patches", field), field);
    }

    /**
     * As Go decodes into {@code []overrideOption}: null is none, absent strings are empty, a null value left out, an
     * empty list in a value null.
     */
    static List<JsonObject> decode(JsonValue patches, String field) throws PolicyEvaluationException {
        if (patches.getValueType() == JsonValue.ValueType.NULL) {
            return List.of();
        }
        if (patches.getValueType() != JsonValue.ValueType.ARRAY) {
            throw new PolicyEvaluationException(field + ": patches is " + kind(patches) + ", not a list of operations");
        }
        List<JsonObject> operations = new ArrayList<>();
        for (int i = 0; i < patches.asJsonArray().size(); i++) {
            JsonValue element = patches.asJsonArray().get(i);
            JsonObject operation = element.getValueType() == JsonValue.ValueType.NULL ? JsonValue.EMPTY_JSON_OBJECT
                    : element instanceof JsonObject o ? o : null;
            if (operation == null) {
                throw new PolicyEvaluationException(field + ": patches[" + i + "] is " + kind(element)
                        + ", not an operation");
            }
            JsonObjectBuilder patch = JSON.createObjectBuilder()
                    .add("op", text(operation, "op", i, field)).add("path", text(operation, "path", i, field));
            JsonValue value = operation.get("value");
            if (value != null && value.getValueType() != JsonValue.ValueType.NULL) {
                patch.add("value", GoDecoding.decoded(value));
            }
            operations.add(patch.build());
        }
        return List.copyOf(operations);
    }

    private static String text(JsonObject operation, String key, int index, String field)
            throws PolicyEvaluationException {
        JsonValue value = operation.get(key);
        if (value == null || value.getValueType() == JsonValue.ValueType.NULL) {
            return "";
        }
        if (value instanceof JsonString s) {
            return s.getString();
        }
        throw new PolicyEvaluationException(field + ": patches[" + index + "]." + key + " is " + kind(value)
                + ", not a string");
    }

    static String kind(JsonValue value) {
        return switch (value.getValueType()) {
            case ARRAY -> "a list";
            case OBJECT -> "a struct";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case TRUE, FALSE -> "a bool";
            case NULL -> "null";
        };
    }
}

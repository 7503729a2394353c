package io.remold.kinitiras.convert;

import io.remold.api.AdmissionOperation;
import io.remold.engine.convert.CannotConvert;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.remold.engine.convert.Jsonpath.list;
import static io.remold.engine.convert.Jsonpath.literal;

/**
 * The validate rules of a ClusterValidatePolicy as Reject steps: a {@code template} condition on the object
 * ({@code dataRef} from {@code current}) that a match item expresses exactly: {@code Exist}, {@code NotExist},
 * {@code In}/{@code NotIn} a {@code stringSlice}, and {@code Equal}/{@code NotEqual} a string on a text field. The
 * refusal is the same (a ModRule lists every rule that refuses, kinitiras the first); kinitiras's message is the
 * rule's {@code rejectMessage}.
 */
final class ValidateRules {
    private static final List<AdmissionOperation> ALL = List.of(AdmissionOperation.CREATE, AdmissionOperation.UPDATE,
            AdmissionOperation.DELETE);
    private static final Set<String> CONSTANT_KINDS = Set.of("string", "integer", "float", "boolean", "stringSlice",
            "integerSlice", "floatSlice", "stringMap");

    private ValidateRules() {
    }

    static List<Step> steps(JsonObject spec) {
        var steps = new ArrayList<Step>();
        JsonArray rules = spec.get("validateRules") instanceof JsonArray a ? a : JsonValue.EMPTY_JSON_ARRAY;
        for (int i = 0; i < rules.size(); i++) {
            String field = "spec.validateRules[" + i + "]";
            JsonObject rule = rules.getJsonObject(i);
            if (!rule.getString("cue", "").isEmpty()) {
                throw new CannotConvert(field + ".cue: " + OverrideRules.CUE_NEVER);
            }
            List<AdmissionOperation> operations = Operations.of(rule, field, ALL);
            if (operations.isEmpty() || !(rule.get("template") instanceof JsonObject template)
                    || !(template.get("condition") instanceof JsonObject condition)) {
                continue; // targets nothing, or a template without a condition lets everything pass
            }
            steps.add(condition(condition, field + ".template.condition", operations));
        }
        return steps;
    }

    private static Step condition(JsonObject condition, String field, List<AdmissionOperation> operations) {
        if (condition.getString("affectMode", "").equals("allow")) {
            throw new CannotConvert(field + ".affectMode: allow refuses with an empty reason wherever the condition"
                    + " does not hold, which is not converted");
        }
        if (condition.containsKey("valueRef")) {
            throw new CannotConvert(field + ".valueRef: a value read when the request comes is not converted");
        }
        JsonObject dataRef = condition.getJsonObject("dataRef");
        if (!dataRef.getString("from", "").equals("current")) {
            throw new CannotConvert(field + ".dataRef.from: " + dataRef.getString("from", "")
                    + " data is not converted (a Reject rule sees only the object)");
        }
        List<String> steps = ObjectPaths.steps(dataRef.getString("path", ""), field + ".dataRef.path");
        String data = Selection.jsonpath(steps);
        String cond = condition.getString("cond", "");
        String hit = switch (cond) {
            case "Equal" -> data + " == " + literal(comparedText(condition, field, steps, cond));
            case "NotEqual" -> "(isDefined(" + data + ") && " + data + " != "
                    + literal(comparedText(condition, field, steps, cond)) + ")";
            case "Exist" -> "isDefined(" + data + ")";
            case "NotExist" -> "isUndefined(" + data + ")";
            case "In" -> "(isDefined(" + data + ") && " + data + " in " + list(strings(condition, field)) + ")";
            case "NotIn" -> "(isDefined(" + data + ") && !(" + data + " in " + list(strings(condition, field)) + "))";
            default -> throw new CannotConvert(field + ".cond: " + cond + " orders as CUE does (and mixed types fail"
                    + " the evaluation), which a match item cannot");
        };
        String message = condition.getString("message", "");
        if (message.contains("{{")) {
            throw new CannotConvert(field + ".message: \"{{\" would read as a template tag in a rejectMessage");
        }
        return new Step(List.of(hit), operations, List.of(), message, List.of());
    }

    /** {@code In}/{@code NotIn}'s list: a {@code stringSlice} and no other constant (another kind would win). */
    private static List<String> strings(JsonObject condition, String field) {
        JsonObject value = condition.getJsonObject("value");
        for (String kind : CONSTANT_KINDS) {
            if (!kind.equals("stringSlice") && value.containsKey(kind) && value.get(kind) != JsonValue.NULL) {
                throw new CannotConvert(field + ".value." + kind + ": only a stringSlice list is converted");
            }
        }
        if (!(value.get("stringSlice") instanceof JsonArray slice) || slice.isEmpty()) {
            throw new CannotConvert(field + ".value: only a non-empty stringSlice list is converted");
        }
        return slice.getValuesAs(JsonString.class).stream().map(JsonString::getString).toList();
    }

    /**
     * {@code Equal}/{@code NotEqual}'s text: a {@code string} constant (the first constant kinitiras reads), without
     * {@code valueProcess}, compared with a field ObjectMeta holds as a string (or not at all), where CUE compares
     * text with text; elsewhere a value of another type fails kinitiras's evaluation, which a match item cannot do.
     */
    private static String comparedText(JsonObject condition, String field, List<String> data, String cond) {
        if (!ObjectPaths.holdsText(data)) {
            throw new CannotConvert(field + ".dataRef.path: " + cond + " on a field that may hold another type than"
                    + " text fails kinitiras's evaluation there, which a match item cannot do; only "
                    + ObjectPaths.TEXT_FIELD_NAMES + " are compared");
        }
        if (condition.containsKey("valueProcess")) {
            throw new CannotConvert(field + ".valueProcess: a processed value is not converted");
        }
        if (!(condition.getJsonObject("value").get("string") instanceof JsonString text)) {
            throw new CannotConvert(field + ".value: only a string value is converted for " + cond);
        }
        return text.getString();
    }
}

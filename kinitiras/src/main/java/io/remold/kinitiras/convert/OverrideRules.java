package io.remold.kinitiras.convert;

import io.remold.api.AdmissionOperation;
import io.remold.api.PatchOp;
import io.remold.api.PatchOperation;
import io.remold.engine.convert.CannotConvert;
import io.remold.engine.convert.Jsonpath;
import io.remold.engine.convert.ValueTemplates;
import io.remold.kinitiras.GoJsonPatch;
import io.remold.kinitiras.template.OverrideTemplate;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static io.remold.engine.convert.Jsonpath.member;
import static io.remold.engine.convert.Jsonpath.pointerToken;

/**
 * The override rules of an OverridePolicy or ClusterOverridePolicy as ModRule steps, in kinitiras's order (rule by
 * rule; within a rule template, cue, then origin or else plaintext), each form one step (a template two: its map is
 * created first where missing). A step runs on CREATE and UPDATE as its rule targets them (kinitiras patches
 * nothing on DELETE). kinitiras applies a form's operations with its JSON patch, whose failure refuses the request;
 * a ModRule's failure only skips the rule, and it creates what kinitiras's {@code add} needs, so an operation
 * converts only where it cannot fail ({@link KnownShape}), as {@code add} (which on an object member does what
 * kinitiras's {@code add} and {@code replace} both do) or {@code remove}.
 */
final class OverrideRules {
    /** Why a {@code cue} form, overriding or validating, is refused. */
    static final String CUE_NEVER = "CUE is never converted (a ModRule has no equivalent of a CUE program)";
    private static final List<String> LABELS = List.of("metadata", "labels");
    private static final JsonString TEXT = Json.createValue("");
    /** Tokens a ModRule path reads otherwise than as a member's key: list indices, appends, placeholders, key steps. */
    private static final Pattern SPECIAL_TOKEN = Pattern.compile("-|-?[0-9]+|.*#[0-9].*|\\[.*=.*]|");

    private OverrideRules() {
    }

    static List<Step> steps(JsonObject spec, Selection selection) {
        var steps = new ArrayList<Step>();
        JsonArray rules = spec.get("overrideRules") instanceof JsonArray a ? a : JsonValue.EMPTY_JSON_ARRAY;
        for (int i = 0; i < rules.size(); i++) {
            String field = "spec.overrideRules[" + i + "]";
            JsonObject rule = rules.getJsonObject(i);
            List<AdmissionOperation> operations = Operations.of(rule, field, List.of(AdmissionOperation.CREATE,
                    AdmissionOperation.UPDATE));
            if (operations.isEmpty()) {
                continue;
            }
            // Only what the selection and this rule's own forms wrote is certain (an earlier rule may target
            // other operations).
            KnownShape known = selection.known().copy();
            steps.addAll(forms(rule.getJsonObject("overriders"), field + ".overriders", operations, known));
        }
        return steps;
    }

    private static List<Step> forms(JsonObject overriders, String field, List<AdmissionOperation> operations,
                                    KnownShape known) {
        var steps = new ArrayList<Step>();
        if (overriders.get("template") instanceof JsonObject template) {
            steps.addAll(template(template, field + ".template", operations, known));
        }
        if (!overriders.getString("cue", "").isEmpty()) {
            throw new CannotConvert(field + ".cue: " + CUE_NEVER);
        }
        if (overriders.get("origin") instanceof JsonArray origin) {
            // With an origin list, even an empty one, kinitiras ignores plaintext.
            if (!origin.isEmpty()) {
                throw new CannotConvert(field + ".origin: origin overriders are not converted (their Pod and"
                        + " Deployment edits, quantities and checks have no exact ModRule form)");
            }
            return steps;
        }
        if (overriders.get("plaintext") instanceof JsonArray plaintext && !plaintext.isEmpty()) {
            var patch = new ArrayList<PatchOperation>();
            var writes = new ArrayList<List<String>>();
            for (int i = 0; i < plaintext.size(); i++) {
                JsonObject operation = plaintext.getJsonObject(i);
                String at = field + ".plaintext[" + i + "]";
                JsonValue value = operation.getOrDefault("value", JsonValue.NULL);
                patch.add(operation(operation.getString("op"), operation.getString("path", ""),
                        new Written(value, ValueTemplates.constant(value), true), false, at, known, writes));
            }
            steps.add(new Step(List.of(), operations, patch, null, writes));
        }
        return steps;
    }

    /**
     * A labels or annotations template: one step that creates the map where the object has none (as kinitiras's
     * rendered CUE does; from absent to empty changes no selector's answer, so it writes nothing a selection reads),
     * then one with its operations on the map's keys: constants, or a text field of the object ({@code valueRef}
     * from {@code current}), copied only where it is set.
     */
    private static List<Step> template(JsonObject template, String field, List<AdmissionOperation> operations,
                                       KnownShape known) {
        String type = template.getString("type", "");
        if (!type.equals("labels") && !type.equals("annotations")) {
            throw new CannotConvert(field + ".type: " + type + " templates are not converted (what kinitiras's"
                    + " rendered CUE writes depends on the object's containers, lists and quantities); only labels"
                    + " and annotations are");
        }
        OverrideTemplate.MapEdit edit = OverrideTemplate.parse(template, field).mapEdit()
                .orElseThrow(() -> new CannotConvert(fetched(template.getJsonObject("valueRef"), field)));
        String mapPath = "/metadata/" + edit.map();
        var creation = new Step(List.of("isUndefined($.metadata" + member(edit.map()) + ")"), operations,
                List.of(new PatchOperation(PatchOp.add, null, mapPath,
                        ValueTemplates.constant(JsonValue.EMPTY_JSON_OBJECT))), null, List.of());
        // The map is an object now: created here, or ObjectMeta's map.
        known.holdsObject(List.of("metadata", edit.map()));
        var match = new ArrayList<String>();
        var patch = new ArrayList<PatchOperation>();
        var writes = new ArrayList<List<String>>();
        for (JsonObject operation : edit.operations()) {
            String op = operation.getString("op");
            String path = operation.getString("path");
            if (edit.copiesValueRef()) {
                List<String> copied = copiedField(template.getJsonObject("valueRef"), field + ".valueRef");
                match.add("isDefined(" + Selection.jsonpath(copied) + ")");
                patch.add(operation(op, path, new Written(TEXT, "{{Target" + Selection.members(copied) + "}}",
                        false), true, field, known, writes));
            } else {
                JsonValue value = operation.getOrDefault("value", JsonValue.NULL);
                patch.add(operation(op, path, new Written(value, ValueTemplates.constant(value), true), true, field,
                        known, writes));
            }
        }
        return patch.isEmpty() ? List.of(creation)
                : List.of(creation, new Step(match, operations, patch, null, writes));
    }

    /**
     * Why a template that fetches its {@code valueRef} (which kinitiras does for every request, used or not) does not
     * convert.
     */
    private static String fetched(JsonObject valueRef, String field) {
        String from = valueRef.getString("from", "");
        return field + ".valueRef.from: " + from + " data is fetched when the request comes, which is not converted: "
                + (from.equals("http") ? "a ModRule has no http reference"
                : "kinitiras refuses the request when the object is missing, a ModRule's reference can only skip or"
                + " fail its rule");
    }

    /** A {@code valueRef} of the object's own text field (kinitiras writes it as found, a string). */
    private static List<String> copiedField(JsonObject valueRef, String field) {
        if (!valueRef.getString("from", "").equals("current")) {
            throw new CannotConvert(field + ".from: " + valueRef.getString("from", "") + " data is not converted (a"
                    + " ModRule template reads the object)");
        }
        List<String> steps = ObjectPaths.steps(valueRef.getString("path", ""), field + ".path");
        if (!ObjectPaths.holdsText(steps)) {
            throw new CannotConvert(field + ".path: kinitiras writes the value as found (empty lists as null), which"
                    + " a template gives the same only for text; only " + ObjectPaths.TEXT_FIELD_NAMES + " are"
                    + " copied");
        }
        return steps;
    }

    /**
     * What an operation writes: the value (for a copied field, a value of its type), its ModRule template, and whether
     * it is certain to be written (a copy is written only where the field is set).
     */
    private record Written(JsonValue shape, String template, boolean certain) {
    }

    /**
     * One JSON patch operation as kinitiras applies it, as a ModRule operation that does the same on every object
     * the rule meets, or why there is none. {@code removeIfPresent}: a template's remove, which its CUE makes only
     * where the key is; {@code value}: what add and replace write.
     */
    private static PatchOperation operation(String op, String path, Written value, boolean removeIfPresent,
                                            String field, KnownShape known, List<List<String>> writes) {
        String[] split = path.split("/", -1);
        if (split.length < 2) {
            throw new CannotConvert(field + ".path: \"" + path + "\" has no step after a /, which kinitiras's JSON"
                    + " patch reads as the whole object");
        }
        var tokens = new ArrayList<String>();
        var pointer = new StringBuilder();
        // kinitiras's JSON patch ignores what comes before the first /.
        for (int i = 1; i < split.length; i++) {
            String token = GoJsonPatch.decode(split[i]);
            if (SPECIAL_TOKEN.matcher(token).matches()) {
                throw new CannotConvert(field + ".path: the step \"" + token + "\" of " + path + " is read as a"
                        + " list index or a special step by one of the patches and as a key by the other");
            }
            tokens.add(token);
            pointer.append('/').append(pointerToken(token));
        }
        List<String> parent = tokens.subList(0, tokens.size() - 1);
        if (!known.isObject(parent)) {
            throw new CannotConvert(field + ".path: " + path + ": kinitiras's " + op + " fails, refusing the"
                    + " request, where " + pointer(parent) + " is missing or not an object (a ModRule creates it),"
                    + " and nothing before it in the policy makes it certain");
        }
        boolean label = tokens.size() == 3 && tokens.subList(0, 2).equals(LABELS);
        // A label that is not a string makes kinitiras read no labels at all: as a write of every label.
        writes.add(label && !op.equals("remove") && !(value.shape() instanceof JsonString) ? LABELS
                : List.copyOf(tokens));
        if (op.equals("remove")) {
            if (!removeIfPresent && !known.isPresent(tokens)) {
                throw new CannotConvert(field + ".path: " + path + ": kinitiras's remove fails, refusing the"
                        + " request, where the member is missing (a ModRule's does nothing), and nothing before it in"
                        + " the policy makes it certain");
            }
            known.forget(tokens);
            return new PatchOperation(PatchOp.remove, null, pointer.toString(), null);
        }
        if (value.certain()) {
            known.wrote(tokens, value.shape());
        } else {
            known.forget(tokens);
        }
        return new PatchOperation(PatchOp.add, null, pointer.toString(), value.template());
    }

    private static String pointer(List<String> tokens) {
        return tokens.isEmpty() ? "the object" : "/" + String.join("/", tokens.stream().map(t -> pointerToken(t))
                .toList());
    }
}

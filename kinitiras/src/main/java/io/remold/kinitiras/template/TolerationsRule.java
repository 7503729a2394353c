package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code tolerations}: without tolerations on the object (none or an empty list) the list is set ({@code add} and
 * {@code replace}); otherwise {@code add} inserts each at index 0 (so they end reversed), while {@code replace} and
 * {@code remove} act on every object toleration the policy's matches: same key for {@code Exists}, same key and
 * value for {@code Equal}. Where kinitiras's CUE yields an empty struct ({@code remove} with no tolerations on the
 * object, a policy toleration whose operator is neither Exists nor Equal) the result holds an empty operation (op
 * and path ""), which fails to apply, as in kinitiras. An object toleration without the key (or value) compared is
 * an evaluation error in kinitiras's CUE, and so here.
 */
record TolerationsRule(String op, List<Toleration> tolerations, JsonArray marshalled) implements TemplateRule {
    private static final JsonProvider JSON = JsonProvider.provider();
    /** The operation kinitiras's CUE yields where its template writes an empty struct; applying it fails. */
    static final JsonObject EMPTY = Patch.of("", "");

    record Toleration(String key, String operator, String value, JsonObject marshalled) {
    }

    TolerationsRule {
        tolerations = List.copyOf(tolerations);
    }

    static TolerationsRule parse(String op, JsonObject template, String field) {
        JsonArray list = Fields.array(template, "tolerations", field);
        List<Toleration> tolerations = new ArrayList<>();
        JsonArrayBuilder marshalled = JSON.createArrayBuilder();
        for (int i = 0; i < list.size(); i++) {
            String at = Fields.at(Fields.at(field, "tolerations"), i);
            if (!(list.get(i) instanceof JsonObject t)) {
                throw new InvalidTemplateException(at, "must be an object");
            }
            JsonObject m = (JsonObject) GoShape.TOLERATION.marshal(t, at);
            tolerations.add(new Toleration(Fields.cueStringContent(Fields.text(t, "key", at), Fields.at(at, "key")),
                    Fields.text(t, "operator", at),
                    Fields.cueStringContent(Fields.text(t, "value", at), Fields.at(at, "value")), m));
            marshalled.add(m);
        }
        if (op.equals("add") && tolerations.size() > 1) {
            // kinitiras writes them into a CUE list without commas: its rendered CUE does not compile
            throw new InvalidTemplateException(Fields.at(field, "tolerations"), "kinitiras cannot add more than one"
                    + " toleration at a time: its rendered CUE does not compile");
        }
        return new TolerationsRule(op, tolerations, marshalled.build());
    }

    @Override
    public List<JsonObject> patches(PolicyInput input, JsonValue fetched) throws PolicyEvaluationException {
        List<JsonObject> patches = new ArrayList<>();
        if (tolerations.isEmpty()) {
            return patches;
        }
        Optional<JsonValue> current = Patch.at(input.object(), "spec", "tolerations");
        int size = current.isEmpty() ? 0 : Cue.length(current.get(), "spec.tolerations");
        if (size == 0) {
            // with nothing to remove kinitiras's CUE still yields one element: an empty operation
            patches.add(op.equals("remove") ? EMPTY : Patch.of("replace", "/spec/tolerations", marshalled));
            return patches;
        }
        if (op.equals("add")) {
            for (Toleration toleration : tolerations) {
                patches.add(Patch.of("add", "/spec/tolerations/0", toleration.marshalled()));
            }
            return patches;
        }
        List<Map.Entry<String, JsonValue>> existing = entries(current.get());
        for (Toleration toleration : tolerations) {
            if (patches.size() + existing.size() > Fields.MAX_PATCHES) {
                throw new PolicyEvaluationException("tolerations: more than " + Fields.MAX_PATCHES
                        + " patch operations for one template");
            }
            boolean exists = toleration.operator().equals("Exists");
            for (Map.Entry<String, JsonValue> t : existing) {
                if (!exists && !toleration.operator().equals("Equal")) {
                    // kinitiras's CUE yields an empty operation per object toleration for another operator
                    patches.add(EMPTY);
                } else if (equal(t.getValue(), "key", toleration.key())
                        && (exists || equal(t.getValue(), "value", toleration.value()))) {
                    patches.add(op.equals("replace")
                            ? Patch.of("replace", "/spec/tolerations/" + t.getKey(), toleration.marshalled())
                            : Patch.of("remove", "/spec/tolerations/" + t.getKey()));
                }
            }
        }
        return patches;
    }

    @Override
    public List<String> cueSteps() {
        if (tolerations.isEmpty()) {
            return List.of();
        }
        String current = "object.spec.tolerations";
        // with nothing to remove, an empty struct: the empty operation kinitiras's CUE yields there
        String whole = op.equals("remove") ? "{}"
                : CueRendering.patch("replace", "/spec/tolerations", CueRendering.literal(marshalled));
        List<String> each = new ArrayList<>();
        for (Toleration toleration : tolerations) {
            each.add(op.equals("add") ? CueRendering.patch("add", "/spec/tolerations/0",
                    CueRendering.literal(toleration.marshalled())) : matching(toleration));
        }
        return List.of(CueRendering.when(current + " == _|_", whole),
                CueRendering.when(current + " != _|_", CueRendering.list(List.of(
                        CueRendering.when("len(" + current + ") == 0", whole),
                        CueRendering.when("len(" + current + ") > 0", CueRendering.list(each))))));
    }

    /**
     * {@code replace} or {@code remove} of each object toleration that matches; for an operator other than Exists
     * and Equal, an empty struct per object toleration (kinitiras's empty operation).
     */
    private String matching(Toleration toleration) {
        String patch = "{op: " + CueRendering.string(op) + ", path: \"/spec/tolerations/\\(i)\""
                + (op.equals("replace") ? ", value: " + CueRendering.literal(toleration.marshalled()) : "") + "}";
        String body = switch (toleration.operator()) {
            case "Exists" -> CueRendering.list(List.of(CueRendering.when("t.key == "
                    + CueRendering.string(toleration.key()), CueRendering.list(List.of(patch)))));
            case "Equal" -> {
                String sameValue = CueRendering.when("t.value == " + CueRendering.string(toleration.value()),
                        CueRendering.list(List.of(patch)));
                yield CueRendering.list(List.of(CueRendering.when("t.key == " + CueRendering.string(toleration.key()),
                        CueRendering.list(List.of(sameValue)))));
            }
            default -> "";
        };
        return "for i, t in object.spec.tolerations {" + body + "}";
    }

    /** What CUE's {@code for i, t in} ranges over: a list's indexes or a struct's fields. */
    private static List<Map.Entry<String, JsonValue>> entries(JsonValue tolerations) throws PolicyEvaluationException {
        List<Map.Entry<String, JsonValue>> entries = new ArrayList<>();
        if (tolerations instanceof JsonArray list) {
            for (int i = 0; i < list.size(); i++) {
                entries.add(Map.entry(Integer.toString(i), list.get(i)));
            }
        } else if (tolerations instanceof JsonObject struct) {
            entries.addAll(struct.entrySet());
        } else {
            throw new PolicyEvaluationException("cannot range over spec.tolerations (" + Cue.kind(tolerations) + ")");
        }
        return entries;
    }

    private static boolean equal(JsonValue toleration, String name, String expected)
            throws PolicyEvaluationException {
        Optional<JsonValue> actual = Patch.at(toleration, name);
        if (actual.isEmpty()) {
            throw new PolicyEvaluationException("undefined field: " + name + " (in spec.tolerations)");
        }
        return Cue.compare(actual.get(), Cue.Comparison.EQ, JSON.createValue(expected));
    }
}

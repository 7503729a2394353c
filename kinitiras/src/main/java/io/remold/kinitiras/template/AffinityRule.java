package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code affinity}, as kinitiras's CUE writes it. Without affinity on the object, {@code add} and {@code replace} set
 * the whole policy affinity. Otherwise, per part (nodeAffinity, podAffinity, podAntiAffinity) the policy has: the
 * part is set where the object lacks it; where the object has it, {@code replace} and {@code remove} act on each of
 * the part's required and preferred lists as a whole, and {@code add} sets a list the object lacks or has empty, and
 * else inserts each policy term at index 0. kinitiras's quirks are kept: podAffinity's preferred terms are inserted
 * only when the object has nodeAffinity preferred terms (an error when it has no nodeAffinity preferred list), and
 * two or more different podAntiAffinity terms to insert conflict (an error). A policy whose affinity has no usable
 * term writes nothing.
 */
record AffinityRule(String op, JsonObject affinity, boolean usable) implements TemplateRule {
    private static final String NODE = "nodeAffinity";
    private static final String POD = "podAffinity";
    private static final String ANTI = "podAntiAffinity";
    private static final String REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution";
    private static final String PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution";
    private static final String TERMS = "nodeSelectorTerms";

    static AffinityRule parse(String op, JsonObject template, String field) {
        JsonObject given = Fields.object(template, "affinity", field);
        if (given == null) {
            return new AffinityRule(op, JsonValue.EMPTY_JSON_OBJECT, false);
        }
        String at = Fields.at(field, "affinity");
        JsonObject affinity = (JsonObject) GoShape.AFFINITY.marshal(given, at);
        boolean usable = usable(affinity);
        if (usable) {
            refuseUncompilable(op, affinity, at);
        }
        return new AffinityRule(op, affinity, usable);
    }

    /** What kinitiras writes into a CUE list without commas, for a usable affinity: its CUE does not compile. */
    private static void refuseUncompilable(String op, JsonObject affinity, String field) {
        if (op.equals("add")) {
            refuseSeveral(affinity, field, NODE, REQUIRED, TERMS);
            refuseSeveral(affinity, field, NODE, PREFERRED);
            return;
        }
        for (String part : List.of(NODE, POD, ANTI)) {
            if (Patch.at(affinity, part, REQUIRED).isPresent() && Patch.at(affinity, part, PREFERRED).isPresent()) {
                throw new InvalidTemplateException(field + "." + part, "kinitiras cannot " + op + " both required"
                        + " and preferred terms in one template: its rendered CUE does not compile");
            }
        }
    }

    private static void refuseSeveral(JsonObject affinity, String field, String... path) {
        if (Patch.at(affinity, path).orElse(JsonValue.NULL) instanceof JsonArray terms && terms.size() > 1) {
            throw new InvalidTemplateException(field + "." + String.join(".", path), "kinitiras cannot add more than"
                    + " one term at a time here: its rendered CUE does not compile");
        }
    }

    /** kinitiras's check that the affinity holds at least one term that says something. */
    private static boolean usable(JsonObject affinity) {
        boolean node = false;
        for (JsonValue term : list(affinity, NODE, REQUIRED, TERMS)) {
            node |= !list(term, "matchExpressions").isEmpty() || !list(term, "matchFields").isEmpty();
        }
        for (JsonValue term : list(affinity, NODE, PREFERRED)) {
            node |= !list(term, "preference", "matchExpressions").isEmpty()
                    || !list(term, "preference", "matchFields").isEmpty();
        }
        return node || !list(affinity, POD, REQUIRED).isEmpty() || !list(affinity, POD, PREFERRED).isEmpty()
                || !list(affinity, ANTI, REQUIRED).isEmpty() || !list(affinity, ANTI, PREFERRED).isEmpty();
    }

    private static JsonArray list(JsonValue root, String... path) {
        return Patch.at(root, path).orElse(JsonValue.NULL) instanceof JsonArray a ? a : JsonValue.EMPTY_JSON_ARRAY;
    }

    @Override
    public List<JsonObject> patches(PolicyInput input, JsonValue fetched) throws PolicyEvaluationException {
        List<JsonObject> patches = new ArrayList<>();
        if (!usable) {
            return patches;
        }
        boolean adding = !op.equals("remove");
        Optional<JsonValue> current = Patch.at(input.object(), "spec", "affinity");
        if (current.isEmpty()) {
            if (adding) {
                patches.add(Patch.of("replace", "/spec/affinity", affinity));
            }
            return patches;
        }
        for (String part : List.of(NODE, POD, ANTI)) {
            Optional<JsonValue> policyPart = Patch.at(affinity, part);
            if (policyPart.isEmpty()) {
                continue;
            }
            String base = "/spec/affinity/" + part;
            Optional<JsonValue> objectPart = Patch.at(current.get(), part);
            if (adding && objectPart.isEmpty()) {
                patches.add(Patch.of("replace", base, policyPart.get()));
            }
            Optional<JsonValue> required = Patch.at(policyPart.get(), REQUIRED);
            Optional<JsonValue> preferred = Patch.at(policyPart.get(), PREFERRED);
            if (objectPart.isEmpty() || (required.isEmpty() && preferred.isEmpty())) {
                continue;
            }
            if (required.isPresent()) {
                String path = base + "/" + REQUIRED;
                if (!op.equals("add")) {
                    patches.add(whole(path, required.get()));
                } else if (part.equals(NODE)) {
                    addNodeRequired(objectPart.get(), (JsonObject) required.get(), path, patches);
                } else {
                    JsonValue existing = Patch.at(objectPart.get(), REQUIRED).orElse(null);
                    addTerms(existing, (JsonArray) required.get(), path, part.equals(ANTI), existing, patches);
                }
            }
            if (preferred.isPresent()) {
                String path = base + "/" + PREFERRED;
                if (!op.equals("add")) {
                    patches.add(whole(path, preferred.get()));
                } else {
                    JsonValue existing = Patch.at(objectPart.get(), PREFERRED).orElse(null);
                    // kinitiras's podAffinity reads nodeAffinity's preferred list to decide whether to insert
                    JsonValue deciding = part.equals(POD)
                            ? Patch.at(current.get(), NODE, PREFERRED).orElse(null) : existing;
                    addTerms(existing, (JsonArray) preferred.get(), path, part.equals(ANTI), deciding, patches);
                }
            }
        }
        return patches;
    }

    @Override
    public List<String> cueSteps() {
        if (!usable) {
            return List.of();
        }
        boolean adding = !op.equals("remove");
        String current = "object.spec.affinity";
        List<String> steps = new ArrayList<>();
        if (adding) {
            steps.add(CueRendering.when(current + " == _|_", CueRendering.patch("replace", "/spec/affinity",
                    CueRendering.literal(affinity))));
        }
        List<String> parts = new ArrayList<>();
        for (String part : List.of(NODE, POD, ANTI)) {
            Optional<JsonValue> policyPart = Patch.at(affinity, part);
            if (policyPart.isEmpty()) {
                continue;
            }
            String base = "/spec/affinity/" + part;
            String objectPart = current + "." + part;
            if (adding) {
                parts.add(CueRendering.when(objectPart + " == _|_", CueRendering.patch("replace", base,
                        CueRendering.literal(policyPart.get()))));
            }
            Optional<JsonValue> required = Patch.at(policyPart.get(), REQUIRED);
            Optional<JsonValue> preferred = Patch.at(policyPart.get(), PREFERRED);
            if (required.isEmpty() && preferred.isEmpty()) {
                continue;
            }
            List<String> lists = new ArrayList<>();
            if (required.isPresent()) {
                String path = base + "/" + REQUIRED;
                String existing = objectPart + "." + REQUIRED;
                if (!op.equals("add")) {
                    lists.add(cueWhole(path, required.get()));
                } else if (part.equals(NODE)) {
                    lists.addAll(cueAddNodeRequired(existing, (JsonObject) required.get(), path));
                } else {
                    lists.addAll(cueAddTerms(existing, (JsonArray) required.get(), path, part.equals(ANTI), existing));
                }
            }
            if (preferred.isPresent()) {
                String path = base + "/" + PREFERRED;
                String existing = objectPart + "." + PREFERRED;
                if (!op.equals("add")) {
                    lists.add(cueWhole(path, preferred.get()));
                } else {
                    String deciding = part.equals(POD) ? current + "." + NODE + "." + PREFERRED : existing;
                    lists.addAll(cueAddTerms(existing, (JsonArray) preferred.get(), path, part.equals(ANTI),
                            deciding));
                }
            }
            parts.add(CueRendering.when(objectPart + " != _|_", CueRendering.list(lists)));
        }
        steps.add(CueRendering.when(current + " != _|_", CueRendering.list(parts)));
        return steps;
    }

    private String cueWhole(String path, JsonValue value) {
        return CueRendering.patch(op, path, op.equals("replace") ? CueRendering.literal(value) : null);
    }

    private static List<String> cueAddNodeRequired(String existing, JsonObject required, String path) {
        List<String> steps = new ArrayList<>();
        steps.add(CueRendering.when(existing + " == _|_", CueRendering.patch("replace", path,
                CueRendering.literal(required))));
        JsonArray terms = list(required, TERMS);
        if (!terms.isEmpty()) {
            String size = "len(" + existing + "." + TERMS + ")";
            steps.add(CueRendering.when(existing + " != _|_", CueRendering.list(List.of(
                    CueRendering.when(size + " == 0", CueRendering.patch("replace", path + "/" + TERMS,
                            CueRendering.literal(terms))),
                    CueRendering.when(size + " > 0", CueRendering.patch("add", path + "/" + TERMS + "/0",
                            CueRendering.literal(terms.get(0))))))));
        }
        return steps;
    }

    /** {@link #addTerms} as CUE; the terms to insert into a podAntiAffinity list are unified, as kinitiras's are. */
    private static List<String> cueAddTerms(String existing, JsonArray terms, String path, boolean unified,
                                            String deciding) {
        String replace = CueRendering.patch("replace", path, CueRendering.literal(terms));
        List<String> inserts = new ArrayList<>();
        for (JsonValue term : terms) {
            inserts.add(CueRendering.patch("add", path + "/0", CueRendering.literal(term)));
        }
        String insert = unified
                ? String.join(" & ", inserts.stream().map(i -> CueRendering.list(List.of(i))).toList())
                : CueRendering.list(inserts);
        return List.of(CueRendering.when(existing + " == _|_", replace),
                CueRendering.when(existing + " != _|_", CueRendering.list(List.of(
                        CueRendering.when("len(" + existing + ") == 0", replace),
                        CueRendering.when("len(" + deciding + ") > 0", insert)))));
    }

    private JsonObject whole(String path, JsonValue value) {
        return op.equals("replace") ? Patch.of("replace", path, value) : Patch.of("remove", path);
    }

    private static void addNodeRequired(JsonValue objectPart, JsonObject required, String path,
                                        List<JsonObject> patches) throws PolicyEvaluationException {
        Optional<JsonValue> existing = Patch.at(objectPart, REQUIRED);
        if (existing.isEmpty()) {
            patches.add(Patch.of("replace", path, required));
            return;
        }
        JsonArray terms = list(required, TERMS);
        if (terms.isEmpty()) {
            return;
        }
        int size = Cue.length(Patch.at(existing.get(), TERMS).orElse(null), REQUIRED + "." + TERMS);
        if (size == 0) {
            patches.add(Patch.of("replace", path + "/" + TERMS, terms));
        } else {
            patches.add(Patch.of("add", path + "/" + TERMS + "/0", terms.get(0)));
        }
    }

    /**
     * Sets the object's list ({@code existing}, null when missing) where it lacks it or has it empty, else inserts
     * each term at index 0 if the list kinitiras checks ({@code deciding}; null when missing, an error) is not empty.
     */
    private static void addTerms(JsonValue existing, JsonArray terms, String path, boolean unified,
                                 JsonValue deciding, List<JsonObject> patches) throws PolicyEvaluationException {
        if (existing == null) {
            patches.add(Patch.of("replace", path, terms));
            return;
        }
        if (Cue.length(existing, path) == 0) {
            patches.add(Patch.of("replace", path, terms));
        }
        if (Cue.length(deciding, path) == 0) {
            return;
        }
        if (unified) {
            // kinitiras embeds one single-element list per term in the same struct: CUE unifies them
            for (JsonValue term : terms) {
                if (!term.equals(terms.get(0))) {
                    throw new PolicyEvaluationException(path + ": conflicting values for the terms to add");
                }
            }
            patches.add(Patch.of("add", path + "/0", terms.get(0)));
            return;
        }
        for (JsonValue term : terms) {
            patches.add(Patch.of("add", path + "/0", term));
        }
    }
}

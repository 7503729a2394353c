package io.remold.server.convert;

import io.remold.api.MatchItem;
import io.remold.api.ModRule;
import io.remold.api.ModRuleSpec;
import io.remold.api.PatchOp;
import io.remold.api.PatchOperation;
import io.remold.api.RuleType;
import io.remold.api.YamlJson;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.path.Location;
import io.remold.gatekeeper.path.PathNode;
import io.remold.templating.TemplateContext;
import io.remold.templating.TemplateException;
import io.remold.templating.Templates;
import io.remold.templating.ValueTemplate;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

import static io.remold.server.convert.Jsonpath.all;
import static io.remold.server.convert.Jsonpath.member;
import static io.remold.server.convert.Jsonpath.pointerToken;

/**
 * One Gatekeeper mutator as {@code remold.io} ModRules that change every object exactly as the mutator alone does,
 * or {@link CannotConvert} naming the construct ModRules cannot express. The rules are cluster-wide (the system
 * namespace with {@code targetNamespaceRegex: .*}, as mutators are) and take consecutive tiers from the one given.
 *
 * <p>A location becomes a patch path; each glob {@code [key: *]} a select step whose capture is {@code #N} in the
 * path; path tests and the kinds' own conditions (AssignMetadata: only if absent; ModifySet merge: only if missing)
 * filters on the glob step before them, or match items where no glob precedes them. Both walk only what exists and
 * create missing parents as objects, as Gatekeeper does below its globs.
 */
final class MutatorRules {
    private static final String MUST_EXIST = "MustExist";
    private static final String MUST_NOT_EXIST = "MustNotExist";
    private static final TemplateContext NO_CONTEXT = new TemplateContext(JsonValue.EMPTY_JSON_OBJECT, "", null,
            List.of(), "CREATE", null);

    private MutatorRules() {
    }

    static List<ModRule> convert(JsonObject manifest, Mutator mutator, String systemNamespace, int firstTier) {
        String kind = mutator.id().kind();
        JsonObject spec = manifest.getJsonObject("spec");
        JsonObject parameters = spec.get("parameters") instanceof JsonObject p ? p : JsonValue.EMPTY_JSON_OBJECT;
        if (mutator.usesExternalData()) {
            throw new CannotConvert("spec.parameters.assign.externalData: the value comes from an external data"
                    + " provider, which a ModRule cannot call");
        }
        List<PathNode> path = mutator.path();
        var criteria = MatchCriteria.of(kind.equals("AssignMetadata") ? null : spec.getJsonArray("applyTo"),
                spec.get("match") instanceof JsonObject m ? m : null);
        var conditions = pathTests(parameters, path);
        String base = kind.toLowerCase(Locale.ROOT) + "-" + mutator.id().name();
        var rules = new ArrayList<ModRule>();
        switch (kind) {
            case "Assign" -> {
                requireFieldsAndGlobs(path, "Assign");
                Walk walk = Walk.of(path, conditions);
                rules.add(rule(systemNamespace, base, firstTier, criteria, walk, PatchOp.add,
                        assignedValue(parameters.getJsonObject("assign"))));
            }
            case "AssignMetadata" -> {
                // Only where the key is absent (any value, null included, counts as present).
                conditions.computeIfAbsent(path.size() - 1, d -> new ArrayList<>()).add(p -> "isUndefined(" + p + ")");
                Walk walk = Walk.of(path, conditions);
                rules.add(rule(systemNamespace, base, firstTier, criteria, walk, PatchOp.add,
                        assignedValue(parameters.getJsonObject("assign"))));
            }
            case "ModifySet" -> {
                requireFieldsAndGlobs(path, "ModifySet");
                List<JsonValue> values = mergedValues(parameters);
                for (int i = 0; i < values.size(); i++) {
                    JsonValue value = values.get(i);
                    var withValue = copy(conditions);
                    // Appended only to a list that lacks it; a missing list is created with it.
                    withValue.computeIfAbsent(path.size() - 1, d -> new ArrayList<>())
                            .add(p -> "(isUndefined(" + p + ") || !(" + value + " in " + p + "))");
                    Walk walk = Walk.of(path, withValue).appending();
                    rules.add(rule(systemNamespace, values.size() == 1 ? base : base + "-" + (i + 1),
                            firstTier + i, criteria, walk, PatchOp.add, constantValue(value)));
                }
            }
            case "AssignImage" -> throw new CannotConvert("AssignImage replaces the domain, path or tag of an image"
                    + " reference as Gatekeeper parses it (and sets one where the field is missing); ModRule"
                    + " templates have no image-reference function that splits a reference the same way");
            default -> throw new CannotConvert("unknown mutator kind " + kind);
        }
        return rules;
    }

    private static ModRule rule(String systemNamespace, String name, int tier, MatchCriteria.Criteria criteria,
                                Walk walk, PatchOp op, String value) {
        var match = new ArrayList<MatchItem>(criteria.items());
        walk.rootConditions().forEach(c -> match.add(MatchItem.of(c)));
        if (match.isEmpty()) {
            match.add(MatchItem.of("true"));
        }
        var patch = new PatchOperation(op, walk.select(), walk.pointer(), value);
        var spec = new ModRuleSpec(RuleType.Patch, criteria.operations(), tier, ".*", null, match, List.of(patch));
        return new ModRule(ModRule.REMOLD_API_VERSION, systemNamespace, name, spec);
    }

    /**
     * A location step by key ({@code [name: foo]}) visits the elements with that key and appends one when none has
     * it, and a location ending in a keyed list replaces the first such element: a JSON Pointer addresses list
     * elements by index only, so neither has an exact ModRule form.
     */
    private static void requireFieldsAndGlobs(List<PathNode> path, String kind) {
        for (int i = 0; i < path.size(); i++) {
            if (path.get(i) instanceof PathNode.KeyedList list && !list.glob()) {
                throw new CannotConvert("location step " + Location.format(path.subList(i, i + 1)).replaceFirst(
                        "^\\.", "") + " of " + Location.format(path) + " selects list elements by key and creates"
                        + " one when none has it; a ModRule patch path addresses list elements by index only"
                        + " (this needs a keyed-list path step)");
            }
        }
        if (path.getLast() instanceof PathNode.KeyedList) {
            throw new CannotConvert(kind + " location ends in a keyed list");
        }
    }

    /** {@code parameters.pathTests} as conditions on the node at each test's depth. */
    private static Map<Integer, List<UnaryOperator<String>>> pathTests(JsonObject parameters, List<PathNode> path) {
        var conditions = new LinkedHashMap<Integer, List<UnaryOperator<String>>>();
        if (!(parameters.get("pathTests") instanceof JsonArray tests)) {
            return conditions;
        }
        for (int i = 0; i < tests.size(); i++) {
            JsonObject test = tests.getJsonObject(i);
            String subPath = test.getString("subPath", "");
            String condition = test.get("condition") instanceof JsonString c ? c.getString() : "";
            int depth = Location.parse(subPath).size() - 1;
            String at = "pathTests[" + i + "] (" + subPath + ")";
            if (condition.isEmpty()) {
                throw new CannotConvert(at + " has no condition, so Gatekeeper never applies the mutator");
            }
            if (path.get(depth) instanceof PathNode.KeyedList list && list.glob()) {
                if (condition.equals(MUST_NOT_EXIST)) {
                    throw new CannotConvert(at + ": MustNotExist on a glob never holds, so Gatekeeper never"
                            + " applies the mutator");
                }
                continue; // MustExist on a glob: every element visited exists
            }
            conditions.computeIfAbsent(depth, d -> new ArrayList<>())
                    .add(condition.equals(MUST_EXIST) ? p -> "isDefined(" + p + ")" : p -> "isUndefined(" + p + ")");
        }
        return conditions;
    }

    private static Map<Integer, List<UnaryOperator<String>>> copy(Map<Integer, List<UnaryOperator<String>>> map) {
        var out = new LinkedHashMap<Integer, List<UnaryOperator<String>>>();
        map.forEach((k, v) -> out.put(k, new ArrayList<>(v)));
        return out;
    }

    /**
     * ModifySet merge's values: strings and booleans, whose equality is the same for Gatekeeper and JSONPath (numbers
     * are not: 1.0 equals 1 in JSONPath only), each once.
     */
    private static List<JsonValue> mergedValues(JsonObject parameters) {
        if ("prune".equals(parameters.getString("operation", ""))) {
            throw new CannotConvert("ModifySet prune removes every equal item of a list; ModRule removes address"
                    + " items by index, and several removes computed from one object shift each other's indices");
        }
        JsonArray fromList = parameters.get("values") instanceof JsonObject v && v.get("fromList") instanceof JsonArray a
                ? a : null;
        if (fromList == null || fromList.isEmpty()) {
            throw new CannotConvert("ModifySet merge without values (Gatekeeper creates an empty list where none"
                    + " exists, or changes nothing); not converted");
        }
        var seen = new HashSet<JsonValue>();
        for (JsonValue value : fromList) {
            if (!(value instanceof JsonString || value == JsonValue.TRUE || value == JsonValue.FALSE)) {
                throw new CannotConvert("ModifySet value " + value + " is not a string or boolean: Gatekeeper"
                        + " compares numbers by their JSON type (1 is not 1.0), JSONPath by value");
            }
            if (!seen.add(value)) {
                throw new CannotConvert("ModifySet values list " + value + " twice: Gatekeeper appends it once to"
                        + " an existing list but twice to a list it creates");
            }
        }
        return List.copyOf(fromList);
    }

    /** {@code parameters.assign}: a constant value, or the object's name or namespace. */
    private static String assignedValue(JsonObject assign) {
        if (assign.get("fromMetadata") instanceof JsonObject from && from.get("field") instanceof JsonString field) {
            // Quoted: a string even when the field is missing (Gatekeeper assigns "").
            return "\"{{Target.metadata." + field.getString() + "}}\"";
        }
        return constantValue(assign.get("value"));
    }

    /**
     * A ModRule value (a YAML document with Mustache tags) that renders exactly {@code value}: its YAML form, or its
     * JSON form, whichever reads back as the same value with no tag in it.
     */
    static String constantValue(JsonValue value) {
        for (String text : List.of(YamlJson.toYaml(value).stripTrailing(), value.toString())) {
            try {
                ValueTemplate template = Templates.compileValue(text);
                if (template.isConstant() && template.render(NO_CONTEXT).equals(value)) {
                    return text;
                }
            } catch (TemplateException e) {
                // try the next form
            }
        }
        throw new CannotConvert("the value " + value + " has no ModRule value template that renders it exactly"
                + " (its text reads as a template)");
    }

    /**
     * Where a rule's operation goes: the select through the location's globs (null without one), the patch path
     * with {@code #N} for each glob, and the conditions that stand before any glob (match items).
     */
    record Walk(String select, String pointer, List<String> rootConditions) {
        static Walk of(List<PathNode> path, Map<Integer, List<UnaryOperator<String>>> conditions) {
            var select = new StringBuilder("$");
            var pointer = new StringBuilder();
            var rootConditions = new ArrayList<String>();
            int lastGlob = -1;
            int captures = 0;
            var pending = new ArrayList<String>(); // conditions relative to the last glob's element
            var relative = new StringBuilder();     // path from the last glob's element (or the root) to here
            for (int depth = 0; depth < path.size(); depth++) {
                switch (path.get(depth)) {
                    case PathNode.Field field -> {
                        relative.append(member(field.name()));
                        pointer.append('/').append(pointerToken(field.name()));
                    }
                    case PathNode.KeyedList list -> {
                        closeStep(select, lastGlob, relative, pending, rootConditions);
                        lastGlob = depth;
                        relative.setLength(0);
                        pointer.append("/#").append(captures++);
                    }
                }
                String node = (lastGlob < 0 ? "$" : "@") + relative;
                for (UnaryOperator<String> condition : conditions.getOrDefault(depth, List.of())) {
                    (lastGlob < 0 ? rootConditions : pending).add(condition.apply(node));
                }
            }
            if (lastGlob < 0) {
                return new Walk(null, pointer.toString(), List.copyOf(rootConditions));
            }
            select.append(pending.isEmpty() ? "[0:]" : "[?(" + all(pending) + ")]");
            return new Walk(select.toString(), pointer.toString(), List.copyOf(rootConditions));
        }

        /** The path so far ends at a glob: the previous glob's step (with its filters) and the fields up to here. */
        private static void closeStep(StringBuilder select, int lastGlob, StringBuilder relative, List<String> pending,
                                      List<String> rootConditions) {
            if (lastGlob >= 0) {
                select.append(pending.isEmpty() ? "[0:]" : "[?(" + all(pending) + ")]");
                pending.clear();
            }
            select.append(relative);
        }

        /** The same, adding to the end of the list at the path instead of setting it. */
        Walk appending() {
            return new Walk(select, pointer + "/-", rootConditions);
        }
    }
}

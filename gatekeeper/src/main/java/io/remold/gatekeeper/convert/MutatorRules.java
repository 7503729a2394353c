package io.remold.gatekeeper.convert;

import io.remold.api.MatchItem;
import io.remold.api.ModRule;
import io.remold.api.ModRuleSpec;
import io.remold.api.PatchOp;
import io.remold.api.PatchOperation;
import io.remold.api.RuleType;
import io.remold.engine.convert.CannotConvert;
import io.remold.engine.convert.ValueTemplates;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.path.Location;
import io.remold.gatekeeper.path.PathNode;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

import static io.remold.engine.convert.Jsonpath.all;
import static io.remold.engine.convert.Jsonpath.literal;
import static io.remold.engine.convert.Jsonpath.member;
import static io.remold.engine.convert.Jsonpath.pointerToken;

/**
 * One Gatekeeper mutator as {@code remold.io} ModRules that change every object exactly as the mutator alone does,
 * or {@link CannotConvert} naming the construct ModRules cannot express. The rules are cluster-wide (the system
 * namespace with {@code targetNamespaceRegex: .*}, as mutators are) and take consecutive tiers from the one given.
 *
 * <p>A location becomes a patch path. Each glob {@code [key: *]}, and each key step {@code [key: v]} before a glob, is
 * a select step whose capture is {@code #N} in the path (Gatekeeper creates nothing there: a glob below a created
 * element finds nothing). A key step after the last glob is the path's own key step {@code [key=v]}, which creates
 * the element when none has the key, as Gatekeeper does. Path tests and the kinds' own conditions (AssignMetadata:
 * only if absent; ModifySet merge: only if missing) are filters on the select step before them, or match items
 * where none precedes them; where such a condition sits at or below a key step that may be created, the mutator
 * becomes one rule for "the element exists" (the key step as a filter) and one per key step for "the first missing
 * element is this one" (the condition decided for a new element).
 */
final class MutatorRules {
    private static final String MUST_EXIST = "MustExist";
    private static final java.util.regex.Pattern PLACEHOLDER = java.util.regex.Pattern.compile("#[0-9]");
    private static final String MUST_NOT_EXIST = "MustNotExist";

    private MutatorRules() {
    }

    static List<ModRule> convert(JsonObject manifest, Mutator mutator, String systemNamespace, int firstTier) {
        String kind = mutator.id().kind();
        JsonObject spec = manifest.getJsonObject("spec");
        JsonObject parameters = spec.get("parameters") instanceof JsonObject p ? p : JsonValue.EMPTY_JSON_OBJECT;
        List<PathNode> path = mutator.path();
        var criteria = MatchCriteria.of(kind.equals("AssignMetadata") ? null : spec.getJsonArray("applyTo"),
                spec.get("match") instanceof JsonObject m ? m : null);
        var conditions = pathTests(parameters, path);
        String base = kind.toLowerCase(Locale.ROOT) + "-" + mutator.id().name();
        var rules = new ArrayList<ModRule>();
        if (mutator.usesExternalData()) {
            String value = externalValue(kind, path, parameters.getJsonObject("assign").getJsonObject("externalData"),
                    conditions);
            return rules(systemNamespace, base, firstTier, criteria, Walk.walks(path, conditions), PatchOp.add, value);
        }
        switch (kind) {
            case "Assign" -> rules.addAll(rules(systemNamespace, base, firstTier, criteria, Walk.walks(path, conditions),
                    PatchOp.add, assignedValue(parameters.getJsonObject("assign"))));
            case "AssignMetadata" -> {
                // Only where the key is absent (any value, null included, counts as present).
                add(conditions, path.size() - 1, new Condition(p -> "isUndefined(" + p + ")", true));
                rules.addAll(rules(systemNamespace, base, firstTier, criteria, Walk.walks(path, conditions),
                        PatchOp.add, assignedValue(parameters.getJsonObject("assign"))));
            }
            case "ModifySet" -> {
                List<JsonValue> values = modifiedValues(parameters);
                boolean prune = "prune".equals(parameters.getString("operation", ""));
                for (int i = 0; i < values.size(); i++) {
                    JsonValue value = values.get(i);
                    String name = values.size() == 1 ? base : base + "-" + (i + 1);
                    if (prune) {
                        // Every equal item goes; a missing list stays missing.
                        rules.addAll(rules(systemNamespace, name, firstTier + rules.size(), criteria,
                                Walk.walks(path, conditions), PatchOp.remove, ValueTemplates.constant(value)));
                        continue;
                    }
                    var withValue = copy(conditions);
                    // Appended only to a list that lacks it; a missing list is created with it.
                    add(withValue, path.size() - 1, new Condition(
                            p -> "(isUndefined(" + p + ") || !(" + value + " in " + p + "))", true));
                    rules.addAll(rules(systemNamespace, name, firstTier + rules.size(), criteria,
                            Walk.walks(path, withValue).stream().map(Walk::appending).toList(), PatchOp.add,
                            ValueTemplates.constant(value)));
                }
            }
            case "AssignImage" -> rules.addAll(rules(systemNamespace, base, firstTier, criteria,
                    Walk.walks(path, conditions), PatchOp.add, imageValue(path, parameters)));
            default -> throw new CannotConvert("unknown mutator kind " + kind);
        }
        return rules;
    }

    /** One rule per walk, in consecutive tiers; more than one walk only where a created element needs its own. */
    private static List<ModRule> rules(String systemNamespace, String name, int firstTier,
                                       MatchCriteria.Criteria criteria, List<Walk> walks, PatchOp op, String value) {
        var rules = new ArrayList<ModRule>();
        for (int i = 0; i < walks.size(); i++) {
            String suffix = walks.size() == 1 ? "" : i == 0 ? "-present" : "-absent-" + i;
            rules.add(rule(systemNamespace, name + suffix, firstTier + i, criteria, walks.get(i), op, value));
        }
        return rules;
    }

    /**
     * AssignImage's value: the image at the location with the assigned parts put in, as {@code imageWith} does (the
     * same split as Gatekeeper's); a missing field counts as the empty reference, as for Gatekeeper.
     */
    private static String imageValue(List<PathNode> path, JsonObject parameters) {
        return "\"{{imageWith " + literal(parameters.getString("assignDomain", "")) + " "
                + literal(parameters.getString("assignPath", "")) + " " + literal(parameters.getString("assignTag", ""))
                + " " + valueAtLocation(path, "AssignImage", "the image") + "}}\"";
    }

    /**
     * An {@code externalData} assign's value: the provider's answer for the value at the location, which stays as it
     * is when the provider fails open ({@code | default}); the provider's own failurePolicy decides, so only Assign's
     * {@code Fail} and {@code Ignore} convert, and only with a MustExist path test on the location, so that both
     * act only where a value is (docs/compatibility.md).
     */
    private static String externalValue(String kind, List<PathNode> path, JsonObject externalData,
                                        Map<Integer, List<Condition>> conditions) {
        String at = "spec.parameters.assign.externalData";
        if (!externalData.getString("dataSource", "ValueAtLocation").equals("ValueAtLocation")) {
            throw new CannotConvert(at + ".dataSource: Username sends the requesting user's name, which a ModRule"
                    + " template cannot see");
        }
        if (externalData.getString("failurePolicy", "Fail").equals("UseDefault")) {
            throw new CannotConvert(at + ".failurePolicy: UseDefault assigns the default when the provider fails,"
                    + " and a ModRule's call to a provider follows the Provider's own failurePolicy (Fail or Ignore)");
        }
        boolean mustExist = conditions.getOrDefault(path.size() - 1, List.of()).stream()
                .anyMatch(c -> !c.holdsWhenAbsent());
        if (!mustExist) {
            throw new CannotConvert(at + ": without a MustExist path test on the location, Gatekeeper also assigns"
                    + " where nothing is set (asking for the key \"\"), which a template reading the value there cannot"
                    + " ask; add pathTests [{subPath: " + Location.format(path).replaceFirst("^\\.", "")
                    + ", condition: MustExist}]");
        }
        String key = valueAtLocation(path, kind, "the value");
        return "{{external " + literal(externalData.getString("provider")) + " " + key + " | default " + key + "}}";
    }

    /** A template reading the value at the location: from the select's result (the last select step) or the object. */
    private static String valueAtLocation(List<PathNode> path, String kind, String what) {
        var template = new StringBuilder("Target");
        for (int depth = 0; depth < path.size(); depth++) {
            if (path.get(depth) instanceof PathNode.Field field) {
                template.append(member(field.name()));
            } else if (Walk.createsAfterLastGlob(path, depth)) {
                throw new CannotConvert(kind + " location step " + Location.format(path.subList(depth, depth + 1))
                        .replaceFirst("^\\.", "") + " may create the element, and a template cannot read " + what
                        + " of an element found by key");
            } else {
                template.setLength(0);
                template.append("SelectedItem");
            }
        }
        return template.toString();
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

    /** {@code parameters.pathTests} as conditions on the node at each test's depth. */
    private static Map<Integer, List<Condition>> pathTests(JsonObject parameters, List<PathNode> path) {
        var conditions = new LinkedHashMap<Integer, List<Condition>>();
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
            add(conditions, depth, condition.equals(MUST_EXIST) ? new Condition(p -> "isDefined(" + p + ")", false)
                    : new Condition(p -> "isUndefined(" + p + ")", true));
        }
        return conditions;
    }

    private static void add(Map<Integer, List<Condition>> conditions, int depth, Condition condition) {
        conditions.computeIfAbsent(depth, d -> new ArrayList<>()).add(condition);
    }

    private static Map<Integer, List<Condition>> copy(Map<Integer, List<Condition>> map) {
        var out = new LinkedHashMap<Integer, List<Condition>>();
        map.forEach((k, v) -> out.put(k, new ArrayList<>(v)));
        return out;
    }

    /**
     * ModifySet's values: strings and booleans, whose equality is the same for Gatekeeper and Remold (numbers are not:
     * 1.0 equals 1 for Remold only), each once (a prune removes all equal items with the first).
     */
    private static List<JsonValue> modifiedValues(JsonObject parameters) {
        boolean prune = "prune".equals(parameters.getString("operation", ""));
        JsonArray fromList = parameters.get("values") instanceof JsonObject v && v.get("fromList") instanceof JsonArray a
                ? a : null;
        if (fromList == null || fromList.isEmpty()) {
            throw new CannotConvert(prune ? "ModifySet prune without values changes nothing; not converted"
                    : "ModifySet merge without values (Gatekeeper creates an empty list where none exists, or"
                    + " changes nothing); not converted");
        }
        var values = new ArrayList<JsonValue>();
        for (JsonValue value : fromList) {
            if (!(value instanceof JsonString || value == JsonValue.TRUE || value == JsonValue.FALSE)) {
                throw new CannotConvert("ModifySet value " + value + " is not a string or boolean: Gatekeeper"
                        + " compares numbers by their JSON type (1 is not 1.0), Remold by value");
            }
            if (values.contains(value) && !prune) {
                throw new CannotConvert("ModifySet values list " + value + " twice: Gatekeeper appends it once to"
                        + " an existing list but twice to a list it creates");
            }
            if (!values.contains(value)) {
                values.add(value);
            }
        }
        return List.copyOf(values);
    }

    /** {@code parameters.assign}: a constant value, or the object's name or namespace. */
    private static String assignedValue(JsonObject assign) {
        if (assign.get("fromMetadata") instanceof JsonObject from && from.get("field") instanceof JsonString field) {
            // Quoted: a string even when the field is missing (Gatekeeper assigns "").
            return "\"{{Target.metadata." + field.getString() + "}}\"";
        }
        return ValueTemplates.constant(assign.get("value"));
    }

    /** A condition on one node of the location, and whether it holds where that node does not exist. */
    record Condition(UnaryOperator<String> on, boolean holdsWhenAbsent) {
    }

    /**
     * Where a rule's operation goes: the select through the location's select steps (null without one), the patch
     * path with {@code #N} for each of them, and the conditions that stand before any (match items).
     */
    record Walk(String select, String pointer, List<String> rootConditions) {

        /**
         * The walks of a location: one, or where a condition sits at or below a key step that may create its element,
         * one for "every such element exists" and one per such step for "the first missing element is this one".
         */
        static List<Walk> walks(List<PathNode> path, Map<Integer, List<Condition>> conditions) {
            int end = path.getLast() instanceof PathNode.KeyedList ? path.size() - 1 : path.size();
            var creating = new ArrayList<Integer>();
            for (int depth = 0; depth < end; depth++) {
                if (createsAfterLastGlob(path, depth)) {
                    creating.add(depth);
                }
            }
            if (conditions.containsKey(path.size() - 1) && end < path.size()) {
                throw new CannotConvert("a path test on the keyed list element the location ends at");
            }
            int firstCreating = creating.isEmpty() ? end : creating.getFirst();
            if (conditions.keySet().stream().noneMatch(depth -> depth >= firstCreating)) {
                return List.of(of(path, conditions, firstCreating, -1));
            }
            var walks = new ArrayList<Walk>();
            walks.add(of(path, conditions, end, -1));
            for (int depth : creating) {
                if (path.size() > depth + 1 && path.get(depth + 1) instanceof PathNode.Field field
                        && conditions.containsKey(depth + 1)
                        && field.name().equals(((PathNode.KeyedList) path.get(depth)).keyField())) {
                    throw new CannotConvert("a path test on the key field of a keyed list element");
                }
                Walk missing = of(path, conditions, depth, depth);
                if (missing != null) {
                    walks.add(missing);
                }
            }
            return walks;
        }

        /** Whether the node at {@code at} is a key step with no glob after it: it creates its element when missing. */
        static boolean createsAfterLastGlob(List<PathNode> path, int at) {
            if (!(path.get(at) instanceof PathNode.KeyedList list) || list.glob()) {
                return false;
            }
            for (int depth = at + 1; depth < path.size(); depth++) {
                if (path.get(depth) instanceof PathNode.KeyedList later && later.glob()) {
                    return false;
                }
            }
            return true;
        }

        /**
         * The walk whose key steps from {@code keyTokensFrom} on are path key steps (those before are select steps),
         * and, with {@code missingAt} ≥ 0, only where the list before {@code missingAt} has no element with its key:
         * then the conditions from there on are decided for a new element, and the walk is null if one fails.
         */
        private static Walk of(List<PathNode> path, Map<Integer, List<Condition>> conditions, int keyTokensFrom,
                               int missingAt) {
            var select = new StringBuilder("$");
            var pointer = new StringBuilder();
            var rootConditions = new ArrayList<String>();
            int lastStep = -1;
            int captures = 0;
            var pending = new ArrayList<String>(); // conditions relative to the last select step's element
            var relative = new StringBuilder();     // path from the last select step's element (or the root) to here
            for (int depth = 0; depth < path.size(); depth++) {
                String parent = (lastStep < 0 ? "$" : "@") + relative;
                PathNode step = path.get(depth);
                if (step instanceof PathNode.Field field) {
                    relative.append(member(field.name()));
                    pointer.append('/').append(pointerToken(field.name()));
                } else if (step instanceof PathNode.KeyedList list && (list.glob() || depth < keyTokensFrom)) {
                    closeStep(select, lastStep, relative, pending, rootConditions);
                    lastStep = depth;
                    relative.setLength(0);
                    pointer.append("/#").append(captures++);
                    if (!list.glob()) {
                        pending.add("@" + member(list.keyField()) + " == " + keyLiteral(list));
                    }
                } else {
                    pointer.append('/').append(pointerToken(keyToken((PathNode.KeyedList) step)));
                }
                if (depth == missingAt) {
                    var list = (PathNode.KeyedList) path.get(depth);
                    (lastStep < 0 ? rootConditions : pending).add("isEmpty(" + parent + "[?(@" + member(list.keyField())
                            + " == " + keyLiteral(list) + ")])");
                }
                String node = (lastStep < 0 ? "$" : "@") + relative;
                for (Condition condition : conditions.getOrDefault(depth, List.of())) {
                    if (missingAt >= 0 && depth >= missingAt) {
                        if (!condition.holdsWhenAbsent()) {
                            return null;
                        }
                    } else {
                        (lastStep < 0 ? rootConditions : pending).add(condition.on().apply(node));
                    }
                }
            }
            if (lastStep < 0) {
                return new Walk(null, pointer.toString(), List.copyOf(rootConditions));
            }
            select.append(pending.isEmpty() ? "[0:]" : "[?(" + all(pending) + ")]");
            return new Walk(select.toString(), pointer.toString(), List.copyOf(rootConditions));
        }

        /** The path so far ends at a select step: the previous one (with its filters) and the fields up to here. */
        private static void closeStep(StringBuilder select, int lastStep, StringBuilder relative, List<String> pending,
                                      List<String> rootConditions) {
            if (lastStep >= 0) {
                select.append(pending.isEmpty() ? "[0:]" : "[?(" + all(pending) + ")]");
                pending.clear();
            }
            select.append(relative);
        }

        private static String keyLiteral(PathNode.KeyedList list) {
            return list.keyValue() instanceof Long number ? number.toString() : literal((String) list.keyValue());
        }

        /** The patch path's key step: {@code [key=value]}, the value quoted where it would read as a number. */
        private static String keyToken(PathNode.KeyedList list) {
            String value = list.keyValue() instanceof Long number ? number.toString()
                    : ((String) list.keyValue()).matches("-?[0-9].*|\".*") ? literal((String) list.keyValue())
                    : (String) list.keyValue();
            if (list.keyField().contains("=") || PLACEHOLDER.matcher(list.keyField() + value).find()) {
                throw new CannotConvert("the key step [" + list.keyField() + ": " + list.keyValue() + "] has a '='"
                        + " in its key or a #N in its text, which a ModRule path key step cannot hold");
            }
            return "[" + list.keyField() + "=" + value + "]";
        }

        /** The same, adding to the end of the list at the path instead of setting it. */
        Walk appending() {
            return new Walk(select, pointer + "/-", rootConditions);
        }
    }
}

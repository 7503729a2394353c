package io.remold.engine;

import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Field-level provenance of a mutation: which rule changed each field of the final patch, and why. The same for
 * {@code eval --explain}, {@code remold test}, {@code remold why} and the server's annotation and decision log.
 */
public final class Provenance {
    /** The annotation the server (option {@code provenance-annotation}) and {@code eval --provenance-annotation} set. */
    public static final String ANNOTATION = "remold.io/changed-by";
    /** Most rule/path pairs the annotation lists; the fields left out are counted under {@link #MORE}. */
    public static final int MAX_PAIRS = 16;
    /** Most characters of the annotation's value, the count of the fields left out included. */
    public static final int MAX_CHARS = 1024;
    /** The annotation's member that counts the changed fields it does not list (not a valid rule name). */
    public static final String MORE = "...";
    /** Room kept for {@code ,"...":N}. */
    private static final int MORE_ROOM = 16;
    /** The reason of a ModRule that applied when the request was not explained. */
    static final String MATCHED = "matched (explain the request for its match items)";
    private static final String NO_RULE = "no rule's own operations name this path (the engine's update of kubectl's"
            + " last-applied annotation, or an item a rule's list insert moved)";

    private Provenance() {
    }

    /** A rule's {@code metadata.generation} by its family and outcome name; 0 when it has none. */
    public interface Generations {
        long of(RuleFamily family, String rule);

        Generations NONE = (family, rule) -> 0;
    }

    /**
     * Who wrote each of the first {@code maxFields} fields of {@code decision}'s patch, in the patch's order: per
     * field, every rule whose own operations wrote it, its parent or a field inside it, in the order they ran (the
     * last one's value stands); a field no rule's operations name has one entry with an empty family and rule.
     * The work is at most {@code maxFields} passes over the operations the rules applied.
     */
    public static List<FieldChange> fields(Decision decision, int maxFields, Generations generations) {
        JsonArray patch = decision.patch();
        var fields = new ArrayList<FieldChange>();
        for (int i = 0; i < Math.min(patch.size(), maxFields); i++) {
            JsonObject operation = patch.getJsonObject(i);
            String path = operation.getString("path");
            String op = operation.getString("op");
            List<FieldChange> writers = writers(decision, path, op, generations);
            fields.addAll(writers.isEmpty() ? List.of(new FieldChange(path, op, "", "", 0, List.of(NO_RULE)))
                    : writers);
        }
        return fields;
    }

    /**
     * Every rule of {@code decision} whose own operations wrote {@code path}, a parent of it or a field inside it,
     * in the order they ran, whether or not the patch changes it ({@code remold why} asks of an object the rules
     * already made); {@code op} is that rule's first such operation's.
     */
    public static List<FieldChange> writers(Decision decision, String path, Generations generations) {
        return writers(decision, path, null, generations);
    }

    /** {@link #writers(Decision, String, Generations)}; {@code op}, when not null, the patch's operation there. */
    private static List<FieldChange> writers(Decision decision, String path, String op, Generations generations) {
        var writers = new ArrayList<FieldChange>();
        for (RuleOutcome outcome : decision.outcomes()) {
            if (outcome.matched() && outcome.error() == null) {
                String written = written(outcome.applied(), path);
                if (written != null) {
                    writers.add(new FieldChange(path, op != null ? op : written, outcome.family().name(),
                            outcome.rule(), generations.of(outcome.family(), outcome.rule()), reasons(outcome)));
                }
            }
        }
        return writers;
    }

    /**
     * {@code decision} with {@link #ANNOTATION} on its object naming the rule that changed each field, when it
     * changed the object: the value replaces what the object brought (never read, so its size costs nothing), and
     * the patch is diffed again from {@code original}, the request's object. Unchanged when nothing changed, the
     * object has no room for annotations (its metadata or annotations are not objects), or the patch would grow
     * past the response bound.
     */
    public static Decision annotated(Decision decision, JsonValue original) {
        return decision.patch().isEmpty() ? decision : annotated(decision, original, changedBy(decision));
    }

    /**
     * {@link #annotated(Decision, JsonValue)} with the annotation's value already made by {@link #changedBy}, for a
     * caller that also logs it.
     */
    public static Decision annotated(Decision decision, JsonValue original, String value) {
        if (decision.patch().isEmpty() || !(decision.result() instanceof JsonObject result)) {
            return decision;
        }
        JsonValue metadata = result.getOrDefault("metadata", JsonValue.EMPTY_JSON_OBJECT);
        if (!(metadata instanceof JsonObject meta)
                || !(meta.getOrDefault("annotations", JsonValue.EMPTY_JSON_OBJECT) instanceof JsonObject annotations)) {
            return decision;
        }
        if (annotations.get(ANNOTATION) instanceof JsonString s && s.getString().equals(value)) {
            return decision;
        }
        JsonObject annotated = JsonTree.with(result, "metadata", JsonTree.with(meta, "annotations",
                JsonTree.with(annotations, ANNOTATION, Json.PROVIDER.createValue(value))));
        JsonArray patch = Engine.diff(original, annotated);
        if (RequestBudget.charsAtMost(patch, RequestBudget.MAX_RESPONSE_PATCH_CHARS)
                > RequestBudget.MAX_RESPONSE_PATCH_CHARS) {
            return decision;
        }
        return new Decision(annotated, patch, decision.rejections(), decision.outcomes());
    }

    /**
     * {@link #ANNOTATION}'s value for {@code decision}: its first {@link #MAX_PAIRS} fields' writers (at most that
     * many passes over the rules' operations), the rest counted.
     */
    public static String changedBy(Decision decision) {
        return annotation(fields(decision, MAX_PAIRS, Generations.NONE), decision.patch().size());
    }

    /**
     * The annotation's value: a compact JSON object of rule name to the paths it set last, in the patch's order,
     * at most {@link #MAX_PAIRS} pairs and {@link #MAX_CHARS} characters; {@code "...": N} counts the {@code total}
     * changed fields it does not list. A field no rule names is not listed (it is counted).
     */
    public static String annotation(List<FieldChange> fields, int total) {
        Map<String, List<String>> pairs = new LinkedHashMap<>();
        int chars = 2;   // {}
        int listed = 0;
        for (int i = 0; i < fields.size() && listed < MAX_PAIRS; i++) {
            FieldChange change = fields.get(i);
            boolean last = i + 1 == fields.size() || !fields.get(i + 1).path().equals(change.path());
            if (!last || change.rule().isEmpty()) {
                continue;
            }
            int cost = quoted(change.path()) + 1;
            List<String> paths = pairs.get(change.rule());
            if (paths == null) {
                cost += quoted(change.rule()) + 3;   // "rule":[...],
            }
            if (chars + cost + MORE_ROOM > MAX_CHARS) {
                break;
            }
            chars += cost;
            pairs.computeIfAbsent(change.rule(), rule -> new ArrayList<>()).add(change.path());
            listed++;
        }
        var out = new StringBuilder(chars + MORE_ROOM).append('{');
        pairs.forEach((rule, paths) -> {
            JsonTree.quote(rule, out.length() > 1 ? out.append(',') : out).append(":[");
            for (int i = 0; i < paths.size(); i++) {
                JsonTree.quote(paths.get(i), i > 0 ? out.append(',') : out);
            }
            out.append(']');
        });
        if (listed < total) {
            JsonTree.quote(MORE, out.length() > 1 ? out.append(',') : out).append(':').append(total - listed);
        }
        return out.append('}').toString();
    }

    /** The length of {@code text} as a JSON string. */
    private static int quoted(String text) {
        return JsonTree.quote(text, new StringBuilder(text.length() + 2)).length();
    }

    /** The operation of {@code applied}'s first that wrote {@code path}, a parent of it or a field inside it; or null. */
    private static String written(JsonArray applied, String path) {
        for (JsonValue value : applied) {
            if (value instanceof JsonObject operation && operation.get("path") instanceof JsonString written
                    && related(written.getString(), path)) {
                return operation.getString("op", "");
            }
        }
        return null;
    }

    /** Whether JSON pointers {@code a} and {@code b} are one field, or one is inside the other. */
    public static boolean related(String a, String b) {
        return a.equals(b) || within(a, b) || within(b, a);
    }

    /** Whether pointer {@code inner} is strictly inside {@code outer}. */
    private static boolean within(String inner, String outer) {
        return inner.length() > outer.length() && inner.startsWith(outer) && inner.charAt(outer.length()) == '/';
    }

    /** Why the rule applied: its match items that held, its references and external answers; else that it matched. */
    private static List<String> reasons(RuleOutcome outcome) {
        if (outcome.held().isEmpty() && outcome.references().isEmpty()) {
            return List.of(outcome.family().equals(RuleFamily.MODRULE) ? MATCHED
                    : "matched: a " + outcome.family().name() + " does not say which of its conditions decided");
        }
        var reasons = new ArrayList<>(outcome.held());
        outcome.references().forEach(line -> reasons.add(line.startsWith("external ") ? line : "reference " + line));
        return reasons;
    }
}

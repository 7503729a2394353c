package io.remold.engine;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.remold.api.AdmissionOperation;
import io.remold.api.MatchFor;
import io.remold.api.MatchItem;
import io.remold.api.ModRule;
import io.remold.api.ModRuleSpec;
import io.remold.api.PatchOp;
import io.remold.api.PatchOperation;
import io.remold.api.RuleType;
import io.remold.jsonpath.BoundedMemo;
import io.remold.jsonpath.BoundedRegex;
import io.remold.jsonpath.JsonPath;
import io.remold.jsonpath.JsonPathEvaluationException;
import io.remold.jsonpath.JsonPathException;
import io.remold.jsonpath.Selection;
import io.remold.templating.ExternalData;
import io.remold.templating.TemplateContext;
import io.remold.templating.TemplateException;
import io.remold.templating.Templates;
import io.remold.templating.TextTemplate;
import io.remold.templating.ValueTemplate;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/** A ModRule compiled once: queries, regexes and templates ready to run, immutable and thread-safe. */
final class CompiledRule {
    private static final Pattern SIMPLE_STEP =
            Pattern.compile("\\.([A-Za-z_][A-Za-z0-9_]*)|\\[\"([^\"\\\\]*)\"\\]|\\['([^'\\\\]*)'\\]");

    final String id;
    final boolean kubemod;
    final String namespace;
    final String name;
    final int tier;
    final RuleType type;
    final Set<AdmissionOperation> operations;
    /** Null when the rule has no targetNamespaceRegex. */
    final Pattern targetNamespace;
    final List<Match> match;
    final List<Step> patch;
    final TextTemplate rejectMessage;
    final RuleReferences references;

    /**
     * One compiled match item; {@code simplePath} is non-null when select is a plain path like {@code $.kind}.
     * {@code regex} is the matchRegex as written and {@code regexFind} its memoized find (both null without one).
     */
    record Match(JsonPath select, List<String> simplePath, MatchFor matchFor, String value, Set<String> values,
                 String regex, Predicate<String> regexFind, boolean negate, boolean readsReferences) {

        /** Null when the item holds, otherwise why not (a fixed text unless {@code explain}). */
        String failure(JsonValue object, boolean explain) {
            Picked picked = pick(object);
            if (picked.failed() != null) {
                // KubeMod: a query that fails (index out of range, type error) selects nothing.
                return negate ? null : explain ? "select failed: " + picked.failed().getMessage() : "select failed";
            }
            JsonValue single = picked.single();
            List<Selection> results = picked.results();
            // A singular query (no wildcard, filter or descent) gives its value as it is, like KubeMod's.
            if (single == JsonValue.TRUE || single == JsonValue.FALSE) {
                boolean holds = (single == JsonValue.TRUE) != negate;
                return holds ? null
                        : explain ? "select yielded " + single + (negate ? " (negated)" : "") : "false";
            }
            List<JsonValue> found = found(single, results);
            if (found.isEmpty()) {
                return negate ? null : explain ? "select yielded nothing" : "nothing selected";
            }
            boolean all = matchFor == MatchFor.All;
            boolean result = all;
            String witness = null;
            if (value == null && values.isEmpty() && regexFind == null) {
                // any value matches: nothing to compare (the first one is the witness of "any")
                result = true;
                witness = explain && !all ? Json.matchText(found.getFirst()) : null;
            } else {
                long compared = 0;
                for (JsonValue v : found) {
                    String text = Json.matchText(v);
                    compared += text.length();
                    if (compared > MAX_COMPARED_CHARS) {
                        throw JsonPathEvaluationException.exceeding("the selected values are more than "
                                + MAX_COMPARED_CHARS + " characters as text", select.expression());
                    }
                    if (matches(text) != all) {
                        result = !all;
                        witness = text;
                        break;
                    }
                }
            }
            boolean holds = result != negate;
            if (holds) {
                return null;
            }
            if (!explain) {
                return "no match";
            }
            String criterion = criterion();
            if (negate) {
                return all ? "every selected value matches " + criterion + " (negated)"
                        : quoted(witness) + " matches " + criterion + " (negated)";
            }
            return all ? quoted(witness) + " does not match " + criterion
                    : "no selected value matches " + criterion + " (selected: " + texts(found) + ")";
        }

        /**
         * What an item that held compared and the values it selected, bounded (field provenance under
         * {@code --explain}): {@code ($.kind) matchValue "Pod": selected "Pod"}.
         */
        String held(JsonValue object) {
            Picked picked = pick(object);  // one that failed held, negated: it selected nothing
            List<JsonValue> found = found(picked.single(), picked.results());
            String selected = found.isEmpty() ? "selected nothing" : "selected " + texts(found);
            if (selected.length() > MAX_HELD_CHARS) {
                selected = selected.substring(0, MAX_HELD_CHARS) + "...";
            }
            return "(" + select.expression() + ") " + (negate ? "not " : "") + criterion() + ": " + selected;
        }

        /** What the select gave: a singular query's value, or the results, or why it failed. */
        private record Picked(JsonValue single, List<Selection> results, RuntimeException failed) {
        }

        private Picked pick(JsonValue object) {
            if (simplePath != null) {
                return new Picked(walk(object), List.of(), null);
            }
            List<Selection> results;
            try {
                results = select.select(object);
            } catch (RuntimeException e) {
                if (e instanceof JsonPathEvaluationException bound && bound.exceedsLimit()) {
                    throw bound; // not "nothing selected": the rule cannot be decided (Engine fails it)
                }
                return new Picked(null, List.of(), e);
            }
            JsonValue single = results.size() == 1 && results.getFirst().captures().isEmpty()
                    ? results.getFirst().value() : null;
            return new Picked(single, results, null);
        }

        /** Walks a plain path ($.kind, $.metadata.labels.app) with no evaluator: most items select one. */
        private JsonValue walk(JsonValue object) {
            JsonValue single = object;
            for (int i = 0; i < simplePath.size() && single != null; i++) {
                single = single instanceof JsonObject o ? o.get(simplePath.get(i)) : null;
            }
            return single;
        }

        /** The values compared: a singular query's value (a list's items), else every result's. */
        private static List<JsonValue> found(JsonValue single, List<Selection> results) {
            List<JsonValue> found = new ArrayList<>(Math.max(1, results.size()));
            if (single != null) {
                if (single == JsonValue.NULL) {
                    // A lone null is "nothing selected", as in Go where it decodes to nil.
                } else if (single instanceof JsonArray array) {
                    found.addAll(array);
                } else {
                    found.add(single);
                }
            } else {
                for (Selection s : results) {
                    found.add(s.value());
                }
            }
            return found;
        }

        private String criterion() {
            return value != null ? "matchValue " + quoted(value)
                    : !values.isEmpty() ? "matchValues " + new TreeSet<>(values)   // a set: sorted, to read alike
                    : regex != null ? "matchRegex " + quoted(regex) : "any value";
        }

        /** KubeMod's precedence: matchValue, else matchValues, else matchRegex, else any value. */
        private boolean matches(String text) {
            if (value != null) {
                return value.equals(text);
            }
            if (!values.isEmpty()) {
                return values.contains(text);
            }
            if (regexFind != null) {
                return regexFind.test(text);
            }
            return true;
        }

        /** The constants the selected value must equal, when this item can index its rule; else null. */
        Set<String> indexKeys() {
            if (simplePath == null || negate || readsReferences) {
                return null;
            }
            if (value != null) {
                return Set.of(value);
            }
            return values.isEmpty() ? null : values;
        }

        private static String texts(List<JsonValue> values) {
            var out = new ArrayList<String>();
            for (JsonValue v : values.subList(0, Math.min(values.size(), 5))) {
                out.add(quoted(Json.matchText(v)));
            }
            return String.join(", ", out) + (values.size() > 5 ? ", ..." : "");
        }

        private static String quoted(String s) {
            return "\"" + s + "\"";
        }
    }

    /**
     * Most characters of text one match item compares its selected values as (objects and lists as compact JSON):
     * up to 100,000 values, each as large as the object, would otherwise multiply ({@code $..*} over a deep object
     * prints each level again). 4 Mi, the request's render budget: a Pod's containers are a few KiB.
     */
    static final long MAX_COMPARED_CHARS = 4L << 20;

    /** Most characters of the values one held match item shows: a provenance line stays readable. */
    static final int MAX_HELD_CHARS = 200;

    /** One compiled patch operation; {@code select} may be null. */
    record Step(PatchOp op, JsonPath select, PathTemplate path, ValueTemplate value) {
    }

    private CompiledRule(ModRule rule, Pattern targetNamespace, List<Match> match, List<Step> patch,
                         TextTemplate rejectMessage, RuleReferences references) {
        this.id = rule.id();
        this.kubemod = rule.isKubeMod();
        this.namespace = rule.namespace();
        this.name = rule.name();
        this.tier = rule.spec().executionTier();
        this.type = rule.spec().type();
        this.operations = EnumSet.copyOf(rule.spec().admissionOperations());
        this.targetNamespace = targetNamespace;
        this.match = match;
        this.patch = patch;
        this.rejectMessage = rejectMessage;
        this.references = references;
    }

    /** Thrown by {@link #compile} with every problem of the rule. */
    static final class Invalid extends Exception {
        final List<RuleCompilation.Problem> problems;

        Invalid(List<RuleCompilation.Problem> problems) {
            super(problems.toString(), null, false, false);
            this.problems = problems;
        }
    }

    /** Compiles a rule afresh ({@link CompiledRules} shares compilations). */
    static CompiledRule compile(ModRule rule) throws Invalid {
        Object compiled = compileOrExplain(rule);
        if (compiled instanceof Invalid invalid) {
            throw invalid;
        }
        return (CompiledRule) compiled;
    }

    /** The rule compiled, or the {@link Invalid} that says why it does not compile. */
    static Object compileOrExplain(ModRule rule) {
        try {
            return compileChecked(rule);
        } catch (Invalid e) {
            return e;
        } catch (RuntimeException e) {
            // Whatever the checks below missed still becomes a problem of this rule, never a crash of the caller.
            return new Invalid(List.of(new RuleCompilation.Problem("spec", 0, "cannot compile the rule: " + e)));
        }
    }

    private static CompiledRule compileChecked(ModRule rule) throws Invalid {
        var problems = new ArrayList<RuleCompilation.Problem>();
        var spec = rule.spec();
        boolean kubemod = rule.isKubeMod();
        checkShape(spec, problems);
        RuleReferences references = RuleReferences.compile(spec.references(), problems);

        Pattern target = null;
        if (spec.targetNamespaceRegex() != null && !spec.targetNamespaceRegex().isEmpty()) {
            target = regex(spec.targetNamespaceRegex(), "spec.targetNamespaceRegex", problems);
        }

        var match = new ArrayList<Match>();
        for (int i = 0; i < spec.match().size(); i++) {
            MatchItem item = spec.match().get(i);
            String at = "spec.match[" + i + "]";
            JsonPath select = path(item.select(), at + ".select", problems);
            Pattern regex = item.matchRegex() == null ? null : regex(item.matchRegex(), at + ".matchRegex", problems);
            Predicate<String> regexFind = regex == null ? null : BoundedMemo.find(regex);
            int criteria = (item.matchValue() != null ? 1 : 0) + (item.matchValues().isEmpty() ? 0 : 1)
                    + (item.matchRegex() != null ? 1 : 0);
            if (criteria > 1) {
                problems.add(new RuleCompilation.Problem(at, 0,
                        "use only one of matchValue, matchValues and matchRegex"));
            }
            match.add(new Match(select, simplePath(item.select()), item.matchFor(), item.matchValue(),
                    Set.copyOf(new LinkedHashSet<>(item.matchValues())), item.matchRegex(), regexFind,
                    item.negate(), !references.isEmpty() && mayReadReferences(item.select())));
        }

        var steps = new ArrayList<Step>();
        for (int i = 0; i < spec.patch().size(); i++) {
            PatchOperation op = spec.patch().get(i);
            String at = "spec.patch[" + i + "]";
            JsonPath select = op.select() == null || op.select().isBlank() ? null
                    : path(op.select(), at + ".select", problems);
            checkPointer(op.path(), at + ".path", problems);
            PathTemplate path = PathTemplate.parse(op.path());
            int highest = path.highestPlaceholder();
            if (highest >= 0 && (op.select() == null || op.select().isBlank())) {
                problems.add(new RuleCompilation.Problem(at + ".path", op.path().indexOf('#'),
                        "#" + highest + " needs a select whose results it refers to"));
            } else if (highest >= 0 && select != null && highest >= maxCaptures(op.select())) {
                problems.add(new RuleCompilation.Problem(at + ".path", op.path().indexOf("#" + highest),
                        "#" + highest + " is beyond the " + maxCaptures(op.select())
                                + " wildcard, filter, slice or union step(s) of the select"));
            }
            ValueTemplate value = null;
            // KubeMod ignores a remove's value; a remold.io remove with a value takes that item out of the list.
            if (op.op() != PatchOp.remove || (op.value() != null && !kubemod)) {
                String source = op.value() == null ? "" : op.value();
                value = template(source, kubemod, at + ".value", problems, Templates::compileValue);
            }
            steps.add(new Step(op.op(), select, path, value));
        }

        TextTemplate reject = null;
        if (spec.rejectMessage() != null) {
            reject = template(spec.rejectMessage(), kubemod, "spec.rejectMessage", problems, Templates::compileText);
        }
        if (!problems.isEmpty()) {
            throw new Invalid(List.copyOf(problems));
        }
        return new CompiledRule(rule, target, List.copyOf(match), List.copyOf(steps), reject, references);
    }

    /**
     * A root step that is not a plain member ({@code $.*}, {@code $[...]}) may reach syntheticRefs. RE2's \s lacks
     * the vertical tab that java.util.regex's has, hence the class.
     */
    private static final Pattern ROOT_WILDCARD = Pattern.compile("\\$[\\s\\x0B]*(\\.[\\s\\x0B]*\\*|\\[)");

    /**
     * Whether a query may see the rule's references: it names syntheticRefs, descends, or takes a wildcard step at
     * the root. The other match items run first, before any look-up, so that a rule's kind or label test spares the
     * look-ups of objects it does not concern (and a Reject rule's onMissing: fail only rejects what it matches).
     */
    static boolean mayReadReferences(String select) {
        return select.contains(TemplateContext.SYNTHETIC_REFS) || select.contains("..")
                || ROOT_WILDCARD.matcher(select).find();
    }

    /** Field combinations the schema cannot express. */
    private static void checkShape(ModRuleSpec spec, List<RuleCompilation.Problem> problems) {
        if (spec.match().isEmpty()) {
            problems.add(new RuleCompilation.Problem("spec.match", 0, "at least one match item is required"));
        }
        if (spec.type() == RuleType.Patch && spec.patch().isEmpty()) {
            problems.add(new RuleCompilation.Problem("spec.patch", 0, "a Patch rule needs at least one operation"));
        }
        if (spec.type() == RuleType.Reject && !spec.patch().isEmpty()) {
            problems.add(new RuleCompilation.Problem("spec.patch", 0, "a Reject rule cannot have a patch"));
        }
        if (spec.type() == RuleType.Patch && spec.rejectMessage() != null) {
            problems.add(new RuleCompilation.Problem("spec.rejectMessage", 0,
                    "only Reject rules have a rejectMessage"));
        }
        if (spec.executionTier() < ModRuleSpec.MIN_TIER || spec.executionTier() > ModRuleSpec.MAX_TIER) {
            problems.add(new RuleCompilation.Problem("spec.executionTier", 0, "must be between "
                    + ModRuleSpec.MIN_TIER + " and " + ModRuleSpec.MAX_TIER + ", not " + spec.executionTier()));
        }
        for (int i = 0; i < spec.admissionOperations().size(); i++) {
            AdmissionOperation op = spec.admissionOperations().get(i);
            if (!op.allowedInRules()) {
                problems.add(new RuleCompilation.Problem("spec.admissionOperations[" + i + "]", 0,
                        op + " cannot be named in a rule (allowed: CREATE, UPDATE, DELETE)"));
            }
        }
    }

    /**
     * A patch path is a JSON Pointer: it starts with / and ~ only escapes 0 or 1; a token in brackets is a list step
     * by key, {@code [key=value]}.
     */
    private static void checkPointer(String path, String field, List<RuleCompilation.Problem> problems) {
        List<String> tokens;
        try {
            tokens = JsonPatcher.tokens(path);
        } catch (JsonPatcher.PatchException e) {
            tokens = List.of();
        }
        if (tokens.isEmpty()) { // no leading /, or "" (the whole document)
            problems.add(new RuleCompilation.Problem(field, 0, "a JSON Pointer must start with /"));
            return;
        }
        for (int i = 0; i < path.length(); i++) {
            if (path.charAt(i) == '~' && (i + 1 == path.length() || "01".indexOf(path.charAt(i + 1)) < 0)) {
                problems.add(new RuleCompilation.Problem(field, i, "~ must be followed by 0 or 1 (~0 is ~, ~1 is /)"));
                return;
            }
        }
        int start = 1;
        for (String token : tokens) {
            String problem = KeyedStep.problem(token);
            if (problem != null) {
                problems.add(new RuleCompilation.Problem(field, start, problem));
                return;
            }
            start += JsonPatcher.escape(token).length() + 1; // the token as written
        }
    }

    /**
     * An upper bound of the captures a select yields: one per wildcard, filter, slice or union step, unbounded
     * with a recursive descent (it captures every step it descends). Counted on the text, so quoted keys holding
     * such characters only make the bound looser, never too tight.
     */
    static int maxCaptures(String select) {
        if (select.contains("..")) {
            return Integer.MAX_VALUE;
        }
        int count = 0;
        for (int i = 0; i < select.length(); i++) {
            char c = select.charAt(i);
            if (c == '*' || c == '?' || c == ':' || c == ',') {
                count++;
            }
        }
        return count;
    }

    /**
     * Most concrete operations one rule may produce against one object, once its selects are expanded: a select
     * over the containers of a Pod gives tens; every operation copies the containers along its path and goes back
     * in the response, and a select can yield up to 100,000 results.
     */
    static final int MAX_OPERATIONS = 1000;

    /**
     * The concrete operations of this rule against the current object (each select run once per result); values
     * calling {@code external} ask {@code external}, the request's view. Each operation counts against the
     * request's {@code budget} as it is made.
     */
    List<JsonPatcher.Operation> operations(JsonValue current, AdmissionRequest request, ExternalData external,
                                           RequestBudget budget) throws JsonPatcher.PatchException {
        var out = new ArrayList<JsonPatcher.Operation>();
        for (int i = 0; i < patch.size(); i++) {
            Step step = patch.get(i);
            if (step.select() == null) {
                checkCount(out, i);
                out.add(operation(step, i, step.path().source(), null, List.of(), current, request, external,
                        budget));
                continue;
            }
            List<Selection> results;
            try {
                results = step.select().select(current);
            } catch (RuntimeException e) {
                throw new JsonPatcher.PatchException("spec.patch[" + i + "].select: " + e.getMessage());
            }
            for (Selection s : results) {
                checkCount(out, i);
                String path = step.path().render(s.captures());
                if (path.contains(PathTemplate.BAD_INDEX)) {
                    throw new JsonPatcher.PatchException("spec.patch[" + i + "].path: \"" + step.path().source()
                            + "\" has a placeholder the select does not capture (gives \"" + path + "\")");
                }
                out.add(operation(step, i, path, s.value(), s.captures(), current, request, external, budget));
            }
        }
        return out;
    }

    private static void checkCount(List<JsonPatcher.Operation> operations, int step) throws JsonPatcher.PatchException {
        if (operations.size() == MAX_OPERATIONS) {
            throw new JsonPatcher.PatchException("spec.patch[" + step + "]: the rule gives more than " + MAX_OPERATIONS
                    + " operations");
        }
    }

    private JsonPatcher.Operation operation(Step step, int index, String path, JsonValue selected,
                                            List<Object> captures, JsonValue current, AdmissionRequest request,
                                            ExternalData external, RequestBudget budget)
            throws JsonPatcher.PatchException {
        JsonPatcher.Operation operation;
        if (step.value() == null) {
            operation = new JsonPatcher.Operation(PatchOp.remove, path, null);
        } else {
            try {
                JsonValue value = step.value().render(new TemplateContext(current, request.namespace(), selected,
                        captures, request.operation().name(), request.oldObject(), external, budget.render));
                operation = new JsonPatcher.Operation(step.op(), path, value);
            } catch (RuntimeException e) {
                // Template errors and data problems (such as numbers out of range) fail this rule only.
                throw new JsonPatcher.PatchException("value of " + step.op() + " " + path + ": " + e.getMessage());
            }
        }
        budget.charge(operation, index);
        return operation;
    }

    /** The rejection message, null when there is none; throws when it fails to render. */
    String rejectMessage(JsonValue object, AdmissionRequest request, ExternalData external, RequestBudget budget) {
        if (rejectMessage == null) {
            return null;
        }
        return rejectMessage.render(new TemplateContext(object, request.namespace(), null, List.of(),
                request.operation().name(), request.oldObject(), external, budget.render));
    }

    /** The namespace the rule counts as deployed in for this request. */
    String namespaceFor(AdmissionRequest request) {
        return namespace != null ? namespace : request.namespace();
    }

    String id() {
        return id;
    }

    private static JsonPath path(String expression, String field, List<RuleCompilation.Problem> problems) {
        try {
            return JsonPath.compile(expression);
        } catch (JsonPathException e) {
            problems.add(new RuleCompilation.Problem(field, Math.max(0, e.position()), e.getMessage()));
            return null;
        } catch (RuntimeException e) {
            problems.add(new RuleCompilation.Problem(field, 0, "cannot compile \"" + expression + "\": " + e));
            return null;
        }
    }

    private static Pattern regex(String regex, String field, List<RuleCompilation.Problem> problems) {
        try {
            return BoundedRegex.compile(regex);
        } catch (PatternSyntaxException e) {
            problems.add(new RuleCompilation.Problem(field, Math.max(0, e.getIndex()), e.getDescription()));
            return null;
        }
    }

    private static <T> T template(String source, boolean kubemod, String field,
                                  List<RuleCompilation.Problem> problems,
                                  java.util.function.Function<String, T> compiler) {
        String text = source;
        try {
            if (kubemod) {
                text = Templates.translateGoTemplate(source);
            }
            return compiler.apply(text);
        } catch (TemplateException e) {
            if (text != source) {
                // The translation of a Go template failed to compile: its positions are not the user's.
                problems.add(new RuleCompilation.Problem(field, 0, "translated to \"" + text + "\": " + e.getMessage()));
            } else {
                problems.add(new RuleCompilation.Problem(field, offset(text, e.line(), e.column()), e.getMessage()));
            }
            return null;
        } catch (RuntimeException e) {
            problems.add(new RuleCompilation.Problem(field, 0, "cannot compile the template: " + e));
            return null;
        }
    }

    private static int offset(String text, int line, int column) {
        if (line <= 0) {
            return 0;
        }
        int offset = 0;
        for (int l = 1; l < line; l++) {
            int nl = text.indexOf('\n', offset);
            if (nl < 0) {
                break;
            }
            offset = nl + 1;
        }
        return Math.max(0, Math.min(text.length(), offset + column - 1));
    }

    /** The steps of a plain path ({@code $.a.b}, {@code $["a/b"]}), or null for anything else. */
    static List<String> simplePath(String expression) {
        String e = expression.strip();
        if (!e.startsWith("$") || e.length() == 1) {
            return null;
        }
        Matcher m = SIMPLE_STEP.matcher(e);
        var steps = new ArrayList<String>();
        int at = 1;
        while (at < e.length()) {
            if (!m.find(at) || m.start() != at) {
                return null;
            }
            String key = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3);
            if (!key.isEmpty() && key.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return null; // ["0"] also indexes lists: not a plain object path
            }
            steps.add(key);
            at = m.end();
        }
        return List.copyOf(steps);
    }
}

package io.remold.engine;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.PatchOp;
import io.remold.api.RuleType;
import io.remold.jsonpath.JsonPathEvaluationException;
import io.remold.json.JsonTree;
import io.remold.templating.ExternalData;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParsingException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import static io.remold.templating.TemplateContext.SYNTHETIC_REFS;

/**
 * An immutable snapshot of compiled ModRules that decides admission requests the way KubeMod does: Patch rules
 * tier by tier ({@link #mutate}), Reject rules against the final object ({@link #validate}). Thread-safe.
 */
public final class Engine {
    static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
    /** The outcome of a request whose whole patch is too large ({@link RequestBudget#MAX_RESPONSE_PATCH_CHARS}). */
    public static final String PATCH_OUTCOME = "patch";
    /** The system namespace of an engine built without one. */
    public static final String DEFAULT_SYSTEM_NAMESPACE = "remold-system";

    private final String systemNamespace;
    private final String kubemodSystemNamespace;
    private final int ruleCount;
    private final List<RuleCompilation> problems;
    private final RuleIndex patchRules;
    private final RuleIndex rejectRules;
    private final List<MutationStage> stages;
    private final List<ValidationStage> validationStages;
    private final ReferenceResolver resolver;
    private final ExternalData externalData;
    /** The rules in mode Warn, by outcome name: the stages' context says so. */
    private final Set<String> warned;

    private Engine(Builder b) {
        this.warned = Set.copyOf(b.warned);
        this.resolver = b.resolver;
        this.externalData = b.externalData;
        this.stages = List.copyOf(b.stages);
        this.validationStages = List.copyOf(b.validationStages);
        this.systemNamespace = b.systemNamespace;
        this.kubemodSystemNamespace = b.kubemodSystemNamespace;
        var compiled = new ArrayList<CompiledRule>();
        var failed = new ArrayList<RuleCompilation>();
        for (ModRule rule : b.rules.values()) {
            var problems = new ArrayList<RuleCompilation.Problem>();
            CompiledRule compiledRule = compile(rule, systemNamespace, b.compiled, problems);
            if (compiledRule != null) {
                compiled.add(compiledRule);
            } else {
                failed.add(new RuleCompilation(rule.id(), problems));
            }
        }
        compiled.sort(Comparator.<CompiledRule>comparingInt(r -> r.tier)
                .thenComparing(r -> r.namespace == null ? "" : r.namespace)
                .thenComparing(r -> r.name));
        this.ruleCount = compiled.size();
        this.problems = List.copyOf(failed);
        this.patchRules = new RuleIndex(compiled.stream().filter(r -> r.type == RuleType.Patch).toList(),
                this::isSystem);
        this.rejectRules = new RuleIndex(compiled.stream().filter(r -> r.type == RuleType.Reject).toList(),
                this::isSystem);
    }

    private boolean isSystem(CompiledRule rule) {
        return Objects.equals(rule.namespace, systemNamespaceOf(rule));
    }

    private String systemNamespaceOf(CompiledRule rule) {
        return rule.kubemod ? kubemodSystemNamespace : systemNamespace;
    }

    /**
     * Whether a rule in {@code namespace} reads like a cluster-wide one: in the system namespace, or from a file
     * without one. Such a rule may read references of any namespace.
     */
    public static boolean clusterWide(String namespace, String systemNamespace) {
        return namespace == null || namespace.equals(systemNamespace);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Compiles one rule on its own: ok, or every problem with its field (for validation and status). */
    public static RuleCompilation compile(ModRule rule) {
        try {
            CompiledRule.compile(rule);
            return new RuleCompilation(rule.id(), List.of());
        } catch (CompiledRule.Invalid e) {
            return new RuleCompilation(rule.id(), e.problems);
        }
    }

    /**
     * Compiles one rule as the engine of a server with this system namespace would: also refuses what the rule's
     * place forbids (a namespaced rule's references naming another namespace).
     */
    public static RuleCompilation compile(ModRule rule, String systemNamespace) {
        return compile(rule, systemNamespace, new CompiledRules());
    }

    /** The same, keeping the compilation in {@code compiled} for the engines built with it. */
    public static RuleCompilation compile(ModRule rule, String systemNamespace, CompiledRules compiled) {
        var problems = new ArrayList<RuleCompilation.Problem>();
        compile(rule, systemNamespace, compiled, problems);
        return new RuleCompilation(rule.id(), problems);
    }

    /**
     * The rule compiled for a server with this system namespace (from {@code known} when it holds it), or null after
     * adding its problems to {@code problems}.
     */
    private static CompiledRule compile(ModRule rule, String systemNamespace, CompiledRules known,
                                        List<RuleCompilation.Problem> problems) {
        CompiledRule compiled = null;
        try {
            compiled = known.compile(rule);
        } catch (CompiledRule.Invalid e) {
            problems.addAll(e.problems);
        }
        problems.addAll(RuleReferences.scopeProblems(rule, clusterWide(rule.namespace(), systemNamespace)));
        return problems.isEmpty() ? compiled : null;
    }

    /** Rules that compiled and take part in decisions. */
    public int ruleCount() {
        return ruleCount;
    }

    /** Rules of the mutation stages (Gatekeeper's mutators, ...), beside the ModRules of {@link #ruleCount()}. */
    public int stageRuleCount() {
        int count = 0;
        for (MutationStage stage : stages) {
            count += stage.ruleCount();
        }
        return count;
    }

    /** Rules of the validation stages (scripts), beside the Reject rules among {@link #ruleCount()}. */
    public int validationStageRuleCount() {
        int count = 0;
        for (ValidationStage stage : validationStages) {
            count += stage.ruleCount();
        }
        return count;
    }

    /** The RFC 6902 patch from {@code before} to {@code after}, as the engine answers it (for stages' outcomes). */
    public static JsonArray diff(JsonValue before, JsonValue after) {
        return JsonDiff.toJson(JsonDiff.diff(before, after));
    }

    /**
     * What a rule's own operations (an outcome's {@code applied}) change of {@code before}, as a strict RFC 6902 patch:
     * a parent the operations create implicitly is added whole, and an operation that writes what is there already
     * is no change. The operations themselves when they do not apply to {@code before} (a later tier's rule whose
     * input an earlier rule made).
     */
    public static JsonArray effect(JsonValue before, JsonArray applied) {
        var operations = new ArrayList<JsonPatcher.Operation>(applied.size());
        try {
            for (JsonValue operation : applied) {
                JsonObject o = operation.asJsonObject();
                operations.add(new JsonPatcher.Operation(PatchOp.valueOf(o.getString("op")), o.getString("path"),
                        o.get("value")));
            }
            return diff(before, JsonPatcher.apply(before, operations));
        } catch (JsonPatcher.PatchException | RuntimeException e) {
            return applied;
        }
    }

    /** Rules that failed to compile and are skipped, with their problems. */
    public List<RuleCompilation> problems() {
        return problems;
    }

    /**
     * Runs the Patch rules: the result, the patch from the request's object to it, and what each rule did. Rules of
     * one tier all see the tier's input; the next tier sees their combined output. A rule that fails leaves the
     * object as it was and reports why in its outcome. Then each {@link MutationStage} runs on the result, and the
     * patch covers ModRules and stages together. DELETE requests are never patched.
     */
    public Decision mutate(AdmissionRequest request) {
        return mutate(request, defaultDeadline());
    }

    /**
     * {@link #mutate(AdmissionRequest)} by {@code deadlineNanos} ({@link System#nanoTime()}), the request's time
     * budget: external data and every stage share it.
     */
    public Decision mutate(AdmissionRequest request, long deadlineNanos) {
        return mutate(request, deadlineNanos, StageObserver.NONE);
    }

    /** {@link #mutate(AdmissionRequest, long)}, telling {@code observer} of each family's stage that ran. */
    public Decision mutate(AdmissionRequest request, long deadlineNanos, StageObserver observer) {
        JsonValue original = subject(request);
        var outcomes = new ArrayList<RuleOutcome>();
        if (!(original instanceof JsonObject object) || request.operation() == AdmissionOperation.DELETE) {
            return new Decision(original, JsonValue.EMPTY_JSON_ARRAY, List.of(), outcomes);
        }
        try (var budget = new RequestBudget()) {
            return mutate(request, object, original, outcomes, budget, deadlineNanos, observer);
        }
    }

    private Decision mutate(AdmissionRequest request, JsonObject object, JsonValue original,
                            List<RuleOutcome> outcomes, RequestBudget budget, long deadlineNanos,
                            StageObserver observer) {
        long modRulesStart = observer.now();
        JsonValue current = withRefs(object, request);
        ExternalData external = externalData.forRequest(request.explain(), deadlineNanos);
        // The annotation is parsed when the first rule applies: most requests match nothing.
        JsonValue lastApplied = null;
        boolean lastAppliedRead = false;
        boolean changed = false;
        boolean lastAppliedChanged = false;

        List<CompiledRule> candidates = patchRules.candidates(request.namespace(), current, request.explain());
        int pos = 0;
        while (pos < candidates.size()) {
            int tier = candidates.get(pos).tier;
            JsonValue tierInput = current;
            int end = pos;
            while (end < candidates.size() && candidates.get(end).tier == tier) {
                end++;
            }
            for (int k = pos; k < end; k++) {
                CompiledRule rule = candidates.get(k);
                int asked = explainedSoFar(external, request);
                budget.startRule();
                RuleReferences.Binding binding;
                try {
                    binding = applies(rule, tierInput, request, outcomes, external, budget);
                    if (binding == null) {
                        continue;
                    }
                } catch (JsonPathEvaluationException e) {
                    // A match item hit a resource bound: the rule cannot be decided and changes nothing.
                    outcomes.add(new RuleOutcome(rule.id(), rule.tier, false, -1, null, JsonValue.EMPTY_JSON_ARRAY,
                            "match: " + e.getMessage()));
                    continue;
                }
                if (binding instanceof RuleReferences.Failed failed) {
                    outcomes.add(new RuleOutcome(rule.id(), rule.tier, true, -1, null, JsonValue.EMPTY_JSON_ARRAY,
                            failed.error(), explained(failed, external, asked, request)));
                    continue;
                }
                JsonValue ruleInput = input(binding, tierInput);
                try {
                    List<JsonPatcher.Operation> ops = rule.operations(ruleInput, request, forRule(rule, external),
                            budget);
                    current = JsonPatcher.apply(current, ops);
                    changed |= !ops.isEmpty();
                    outcomes.add(new RuleOutcome(RuleFamily.MODRULE, rule.id(), rule.tier, true, -1, null,
                            JsonDiff.toJson(ops), null, explained(binding, external, asked, request),
                            held(rule, tierInput, ruleInput, request)));
                    if (!lastAppliedRead) {
                        lastApplied = lastApplied(original);
                        lastAppliedRead = true;
                    }
                    if (lastApplied != null) {
                        try {
                            JsonValue patched = JsonPatcher.apply(lastApplied, ops);
                            // A patch that leaves it as it was does not rewrite it (nor drop kubectl's final newline).
                            lastAppliedChanged |= !patched.equals(lastApplied);
                            lastApplied = patched;
                        } catch (JsonPatcher.PatchException e) {
                            // The annotation keeps what it had when the rule does not fit it.
                        }
                    }
                } catch (JsonPatcher.PatchException | RuntimeException e) {
                    budget.ruleFailed();
                    outcomes.add(new RuleOutcome(rule.id(), rule.tier, true, -1, null, JsonValue.EMPTY_JSON_ARRAY,
                            e.getMessage() == null ? e.toString() : e.getMessage(),
                            explained(binding, external, asked, request)));
                }
            }
            pos = end;
            if (current != tierInput && patchRules.anyTierAbove(request.namespace(), tier)) {
                // This tier changed the object: look the later tiers up again against the new one.
                List<CompiledRule> fresh = patchRules.candidates(request.namespace(), current, request.explain());
                int next = 0;
                while (next < fresh.size() && fresh.get(next).tier <= tier) {
                    next++;
                }
                candidates = fresh;
                pos = next;
            }
        }
        JsonValue result = object;
        if (changed) {
            result = withoutRefs(current, object);
            if (lastAppliedChanged) {
                result = withLastApplied(result, lastApplied);
            }
        }
        if (ruleCount() > 0) {
            observer.ended(RuleFamily.MODRULE, modRulesStart);
        }
        StageContext context = null;
        for (MutationStage stage : stages) {
            if (result instanceof JsonObject o && stage.ruleCount() > 0) {
                if (context == null) {
                    // only a stage that runs may refuse the request
                    context = new StageContext(request, external, resolver, deadlineNanos, outcomes,
                            new ArrayList<>(), warned);
                }
                long start = observer.now();
                result = stage.mutate(o, context);
                observer.ended(stage.family(), start);
            }
        }
        List<Rejection> refused = context == null ? List.of() : context.rejections();
        if (result == original) {
            return new Decision(original, JsonValue.EMPTY_JSON_ARRAY, refused, outcomes);
        }
        JsonArray patch = JsonDiff.toJson(JsonDiff.diff(original, result));
        if (RequestBudget.charsAtMost(patch, RequestBudget.MAX_RESPONSE_PATCH_CHARS)
                > RequestBudget.MAX_RESPONSE_PATCH_CHARS) {
            // The stages' changes are bounded per value, not in all (a mutator's value on each of a huge list's
            // items): the request is answered unpatched rather than with a response the API server cannot take.
            outcomes.add(new RuleOutcome(PATCH_OUTCOME, 0, true, -1, null, JsonValue.EMPTY_JSON_ARRAY,
                    "the patch would have more than " + RequestBudget.MAX_RESPONSE_PATCH_CHARS
                            + " characters: nothing is patched"));
            return new Decision(original, JsonValue.EMPTY_JSON_ARRAY, refused, outcomes);
        }
        return new Decision(result, patch, refused, outcomes);
    }

    /** Runs the Reject rules against the request's object (the final one, after mutation). */
    public Decision validate(AdmissionRequest request) {
        return validate(request, defaultDeadline());
    }

    /** The time budget of a request decided without one: {@link ExternalData#REQUEST_BUDGET} from now. */
    private static long defaultDeadline() {
        return System.nanoTime() + ExternalData.REQUEST_BUDGET.toNanos();
    }

    /**
     * {@link #validate(AdmissionRequest)} by {@code deadlineNanos} ({@link System#nanoTime()}), the request's time
     * budget: external data and every stage share it.
     */
    public Decision validate(AdmissionRequest request, long deadlineNanos) {
        return validate(request, deadlineNanos, StageObserver.NONE);
    }

    /** {@link #validate(AdmissionRequest, long)}, telling {@code observer} of each family's stage that ran. */
    public Decision validate(AdmissionRequest request, long deadlineNanos, StageObserver observer) {
        JsonValue original = subject(request);
        var outcomes = new ArrayList<RuleOutcome>();
        var rejections = new ArrayList<Rejection>();
        if (original instanceof JsonObject object) {
            long modRulesStart = observer.now();
            ExternalData external = externalData.forRequest(request.explain(), deadlineNanos);
            try (var budget = new RequestBudget()) {
                rejectRules(request, object, outcomes, rejections, external, budget);
            }
            if (ruleCount() > 0) {
                observer.ended(RuleFamily.MODRULE, modRulesStart);
            }
            var context = new StageContext(request, external, resolver, deadlineNanos, outcomes, rejections,
                    warned);
            for (ValidationStage stage : validationStages) {
                if (stage.ruleCount() > 0) {
                    long start = observer.now();
                    stage.validate(object, context);
                    observer.ended(stage.family(), start);
                }
            }
        }
        return new Decision(original, JsonValue.EMPTY_JSON_ARRAY, rejections, outcomes);
    }

    private void rejectRules(AdmissionRequest request, JsonObject object, List<RuleOutcome> outcomes,
                             List<Rejection> rejections, ExternalData external, RequestBudget budget) {
        JsonValue current = withRefs(object, request);
        for (CompiledRule rule : rejectRules.candidates(request.namespace(), current, request.explain())) {
            int asked = explainedSoFar(external, request);
            budget.startRule();
            RuleReferences.Binding binding;
            try {
                binding = applies(rule, current, request, outcomes, external, budget);
                if (binding == null) {
                    continue;
                }
            } catch (JsonPathEvaluationException e) {
                // A Reject rule that cannot be decided fails closed: an object large enough to reach a bound
                // must not slip past it.
                String why = "the rule cannot be evaluated: " + e.getMessage();
                rejections.add(new Rejection(rule.namespaceFor(request), rule.name, why, RuleFamily.MODRULE, rule.id()));
                outcomes.add(new RuleOutcome(rule.id(), rule.tier, true, -1, null, JsonValue.EMPTY_JSON_ARRAY,
                        "match: " + e.getMessage()));
                continue;
            }
            String message = null;
            String error = null;
            if (binding instanceof RuleReferences.Failed failed) {
                // Fail closed: a validation that cannot read what it compares with refuses the object.
                message = failed.error();
                error = failed.error();
            } else {
                try {
                    message = rule.rejectMessage(input(binding, current), request, forRule(rule, external),
                            budget);
                } catch (RuntimeException e) {
                    // KubeMod still rejects, without a message.
                    error = "rejectMessage: " + (e.getMessage() == null ? e.toString() : e.getMessage());
                }
            }
            rejections.add(new Rejection(rule.namespaceFor(request), rule.name, message, RuleFamily.MODRULE,
                    rule.id()));
            outcomes.add(new RuleOutcome(rule.id(), rule.tier, true, -1, null, JsonValue.EMPTY_JSON_ARRAY, error,
                    explained(binding, external, asked, request)));
        }
    }

    /**
     * Operation filter, match items and references; records why not when explaining. Null when the rule does not
     * apply; else the object with the rule's references bound ({@link #UNBOUND} without any), or why a reference
     * failed. Match items that cannot see the references run first, so that a rule looks its references up only
     * for objects it may concern.
     */
    private RuleReferences.Binding applies(CompiledRule rule, JsonValue object, AdmissionRequest request,
                                           List<RuleOutcome> outcomes, ExternalData external,
                                           RequestBudget budget) {
        if (!rule.operations.contains(request.operation())) {
            if (request.explain()) {
                outcomes.add(new RuleOutcome(rule.id(), rule.tier, false, -1, "operation " + request.operation()
                        + " is not in admissionOperations " + rule.operations, JsonValue.EMPTY_JSON_ARRAY, null));
            }
            return null;
        }
        if (!matches(rule, object, false, request, outcomes, List.of())) {
            return null;
        }
        if (rule.references.isEmpty()) {
            return UNBOUND;
        }
        boolean clusterWide = clusterWide(rule.namespace, systemNamespaceOf(rule));
        RuleReferences.Binding binding = rule.references.bind(rule.id(), rule.namespace, clusterWide, object,
                request, resolver, external.forCaller(rule.namespace, clusterWide), budget.render);
        return switch (binding) {
            case RuleReferences.Skipped skipped -> {
                if (request.explain()) {
                    outcomes.add(new RuleOutcome(rule.id(), rule.tier, false, -1, skipped.reason(),
                            JsonValue.EMPTY_JSON_ARRAY, null, skipped.explained()));
                }
                yield null;
            }
            case RuleReferences.Failed failed -> failed;
            case RuleReferences.Bound bound ->
                    matches(rule, bound.object(), true, request, outcomes, bound.explained()) ? bound : null;
        };
    }

    /**
     * The request's external data view as {@code rule} calls it: a Provider refuses a namespaced rule outside its
     * {@code spec.namespaces}. Stages get the request's view itself, a cluster-wide caller.
     */
    private ExternalData forRule(CompiledRule rule, ExternalData external) {
        return external.forCaller(rule.namespace, clusterWide(rule.namespace, systemNamespaceOf(rule)));
    }

    /** How many lines the request's external data view has explained so far (0 when not explaining). */
    private static int explainedSoFar(ExternalData external, AdmissionRequest request) {
        return request.explain() ? external.explained().size() : 0;
    }

    /**
     * A rule's explanation: how its references were resolved, then what its own calls to {@code external} answered
     * (the view's lines since {@code asked}, when the request asks for an explanation).
     */
    private static List<String> explained(RuleReferences.Binding binding, ExternalData external, int asked,
                                          AdmissionRequest request) {
        if (!request.explain()) {
            return binding.explained();
        }
        List<String> lines = external.explained();
        if (lines.size() <= asked) {
            return binding.explained();
        }
        var all = new ArrayList<>(binding.explained());
        all.addAll(lines.subList(asked, lines.size()));
        return all;
    }

    /**
     * Why a rule that applied matched, when the request asks for an explanation: each match item with what it
     * selected, the items that read references on the object with them bound ({@code withReferences}).
     */
    private static List<String> held(CompiledRule rule, JsonValue object, JsonValue withReferences,
                                     AdmissionRequest request) {
        if (!request.explain()) {
            return List.of();
        }
        var lines = new ArrayList<String>(rule.match.size());
        for (int i = 0; i < rule.match.size(); i++) {
            CompiledRule.Match item = rule.match.get(i);
            lines.add("spec.match[" + i + "] " + item.held(item.readsReferences() ? withReferences : object));
        }
        return lines;
    }

    /** What {@link #applies} answers for a rule without references: it runs on its input as it is. */
    private static final RuleReferences.Bound UNBOUND = new RuleReferences.Bound(null, List.of());

    /** The object a rule that applies runs on: its input, with the rule's references bound when it has any. */
    private static JsonValue input(RuleReferences.Binding binding, JsonValue input) {
        return binding == UNBOUND ? input : ((RuleReferences.Bound) binding).object();
    }

    /** The match items that may ({@code readingReferences}) or cannot see the references; false at the first failure. */
    private static boolean matches(CompiledRule rule, JsonValue object, boolean readingReferences,
                                   AdmissionRequest request, List<RuleOutcome> outcomes, List<String> references) {
        for (int i = 0; i < rule.match.size(); i++) {
            CompiledRule.Match item = rule.match.get(i);
            if (item.readsReferences() != readingReferences) {
                continue;
            }
            String failure = item.failure(object, request.explain());
            if (failure != null) {
                if (request.explain()) {
                    outcomes.add(new RuleOutcome(rule.id(), rule.tier, false, i, "spec.match[" + i + "] ("
                            + item.select().expression() + "): " + failure, JsonValue.EMPTY_JSON_ARRAY, null,
                            references));
                }
                return false;
            }
        }
        return true;
    }

    private static JsonValue subject(AdmissionRequest request) {
        JsonValue v = request.operation() == AdmissionOperation.DELETE && request.oldObject() != null
                ? request.oldObject() : request.object();
        return v == null ? JsonValue.NULL : v;
    }

    /**
     * The object as rules see it: {@code syntheticRefs} holds what the server looked up, never what the object
     * brings under that key (a custom resource that keeps unknown fields could forge the namespace's labels).
     */
    private static JsonValue withRefs(JsonObject object, AdmissionRequest request) {
        JsonObject own = object.containsKey(SYNTHETIC_REFS) ? JsonTree.without(object, SYNTHETIC_REFS) : object;
        if (request.namespaceRef() == null && request.nodeRef() == null) {
            return own;
        }
        var refs = Json.PROVIDER.createObjectBuilder();
        if (request.namespaceRef() != null) {
            refs.add("namespace", request.namespaceRef());
        }
        if (request.nodeRef() != null) {
            refs.add("node", request.nodeRef());
        }
        return JsonTree.with(own, SYNTHETIC_REFS, refs.build());
    }

    /**
     * Synthetic references are for matching and templates only: they never reach the result, which keeps whatever
     * the request's object itself had under that key.
     */
    private static JsonValue withoutRefs(JsonValue current, JsonObject original) {
        if (!(current instanceof JsonObject o)) {
            return current;
        }
        JsonValue own = original.get(SYNTHETIC_REFS);
        JsonValue now = o.get(SYNTHETIC_REFS);
        if (now == own) {
            return current;
        }
        return own == null ? JsonTree.without(o, SYNTHETIC_REFS) : JsonTree.with(o, SYNTHETIC_REFS, own);
    }

    private static JsonValue lastApplied(JsonValue object) {
        if (!(annotations(object) instanceof JsonObject annotations)
                || !(annotations.get(LAST_APPLIED) instanceof JsonString text)) {
            return null;
        }
        try {
            return JsonTree.parse(text.getString().getBytes(StandardCharsets.UTF_8));
        } catch (JsonParsingException e) {
            return null;
        }
    }

    private static JsonValue withLastApplied(JsonValue result, JsonValue lastApplied) {
        if (!(annotations(result) instanceof JsonObject annotations) || !annotations.containsKey(LAST_APPLIED)) {
            return result;
        }
        JsonObject object = (JsonObject) result;
        JsonObject metadata = object.getJsonObject("metadata");
        JsonObject newAnnotations = JsonTree.with(annotations, LAST_APPLIED,
                Json.PROVIDER.createValue(JsonTree.goText(lastApplied)));
        return JsonTree.with(object, "metadata", JsonTree.with(metadata, "annotations", newAnnotations));
    }

    private static JsonValue annotations(JsonValue object) {
        if (object instanceof JsonObject o && o.get("metadata") instanceof JsonObject metadata) {
            return metadata.get("annotations");
        }
        return null;
    }

    /** Collects rules; a later rule with the same namespace and name replaces an earlier one. */
    public static final class Builder {
        private String systemNamespace = DEFAULT_SYSTEM_NAMESPACE;
        private String kubemodSystemNamespace;
        private final Map<String, ModRule> rules = new LinkedHashMap<>();
        private final List<MutationStage> stages = new ArrayList<>();
        private final List<ValidationStage> validationStages = new ArrayList<>();
        private ReferenceResolver resolver = ReferenceResolver.NONE;
        private ExternalData externalData = ExternalData.NONE;
        private CompiledRules compiled = new CompiledRules();
        private Set<String> warned = Set.of();

        private Builder() {
        }

        /**
         * The rules in mode Warn, by outcome name (default none): they run as the others, and their refusals are in
         * the decision as any; the caller turns them into warnings. A stage that stops at its first refusal goes on
         * past theirs ({@link StageContext#enforced}).
         */
        public Builder warned(Set<String> rules) {
            this.warned = Set.copyOf(rules);
            return this;
        }

        /** Where the rules' compilations come from and are kept (default: compiled for this engine alone). */
        public Builder compiled(CompiledRules compiled) {
            this.compiled = Objects.requireNonNull(compiled);
            return this;
        }

        /**
         * Where the template function {@code external} asks external data providers (default: nowhere, every call
         * fails closed). The engine takes one {@link ExternalData#forRequest(boolean)} view per admission request,
         * explaining only when the request asks.
         */
        public Builder externalData(ExternalData externalData) {
            this.externalData = Objects.requireNonNull(externalData);
            return this;
        }

        /** Where rules' {@code spec.references} are looked up (default: nowhere, every reference is missing). */
        public Builder references(ReferenceResolver resolver) {
            this.resolver = Objects.requireNonNull(resolver);
            return this;
        }

        /**
         * A rule family, in the order stages are added: run after the ModRule Patch rules when it is a
         * {@link MutationStage}, after the Reject rules when it is a {@link ValidationStage}, both when it is both.
         */
        public Builder stage(Stage stage) {
            Objects.requireNonNull(stage);
            if (stage instanceof MutationStage mutation) {
                stages.add(mutation);
            }
            if (stage instanceof ValidationStage validation) {
                validationStages.add(validation);
            }
            return this;
        }

        public Builder systemNamespace(String namespace) {
            this.systemNamespace = Objects.requireNonNull(namespace);
            return this;
        }

        /**
         * The namespace whose api.kubemod.io rules are cluster-wide, as KubeMod's own; null (the default): none, such
         * rules are namespaced like any other. Only a server run for KubeMod compatibility sets it: whoever may
         * create a namespace of that name would otherwise get rules over every namespace.
         */
        public Builder kubemodSystemNamespace(String namespace) {
            this.kubemodSystemNamespace = namespace;
            return this;
        }

        public Builder rules(Collection<ModRule> rules) {
            rules.forEach(this::rule);
            return this;
        }

        public Builder rule(ModRule rule) {
            rules.put((rule.namespace() == null ? "\0" : rule.namespace()) + "/" + rule.name(), rule);
            return this;
        }

        public Engine build() {
            return new Engine(this);
        }
    }
}

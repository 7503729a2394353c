package io.remold.engine;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.RuleType;
import io.remold.json.JsonTree;
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

/**
 * An immutable snapshot of compiled ModRules that decides admission requests the way KubeMod does: Patch rules
 * tier by tier ({@link #mutate}), Reject rules against the final object ({@link #validate}). Thread-safe.
 */
public final class Engine {
    static final String SYNTHETIC_REFS = "syntheticRefs";
    static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

    private final String systemNamespace;
    private final String kubemodSystemNamespace;
    private final int ruleCount;
    private final List<RuleCompilation> problems;
    private final RuleIndex patchRules;
    private final RuleIndex rejectRules;
    private final List<MutationStage> stages;

    private Engine(Builder b) {
        this.stages = List.copyOf(b.stages);
        this.systemNamespace = b.systemNamespace;
        this.kubemodSystemNamespace = b.kubemodSystemNamespace;
        var compiled = new ArrayList<CompiledRule>();
        var failed = new ArrayList<RuleCompilation>();
        for (ModRule rule : b.rules.values()) {
            try {
                compiled.add(CompiledRule.compile(rule));
            } catch (CompiledRule.Invalid e) {
                failed.add(new RuleCompilation(rule.id(), e.problems));
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
        return Objects.equals(rule.namespace, rule.kubemod ? kubemodSystemNamespace : systemNamespace);
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

    /** The RFC 6902 patch from {@code before} to {@code after}, as the engine answers it (for stages' outcomes). */
    public static JsonArray diff(JsonValue before, JsonValue after) {
        return JsonDiff.toJson(JsonDiff.diff(before, after));
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
        JsonValue original = subject(request);
        var outcomes = new ArrayList<RuleOutcome>();
        if (!(original instanceof JsonObject object) || request.operation() == AdmissionOperation.DELETE) {
            return new Decision(original, JsonValue.EMPTY_JSON_ARRAY, List.of(), outcomes);
        }
        JsonValue current = withRefs(object, request);
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
                if (!applies(rule, tierInput, request, outcomes)) {
                    continue;
                }
                try {
                    List<JsonPatcher.Operation> ops = rule.operations(tierInput, request);
                    current = JsonPatcher.apply(current, ops);
                    changed |= !ops.isEmpty();
                    outcomes.add(new RuleOutcome(rule.id(), rule.tier, true, -1, null, JsonDiff.toJson(ops), null));
                    if (!lastAppliedRead) {
                        lastApplied = lastApplied(original);
                        lastAppliedRead = true;
                    }
                    if (lastApplied != null) {
                        try {
                            lastApplied = JsonPatcher.apply(lastApplied, ops);
                            lastAppliedChanged = true;
                        } catch (JsonPatcher.PatchException e) {
                            // The annotation keeps what it had when the rule does not fit it.
                        }
                    }
                } catch (JsonPatcher.PatchException | RuntimeException e) {
                    outcomes.add(new RuleOutcome(rule.id(), rule.tier, true, -1, null, JsonValue.EMPTY_JSON_ARRAY,
                            e.getMessage() == null ? e.toString() : e.getMessage()));
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
        for (MutationStage stage : stages) {
            if (result instanceof JsonObject o && stage.ruleCount() > 0) {
                result = stage.mutate(o, request, outcomes);
            }
        }
        if (result == original) {
            return new Decision(original, JsonValue.EMPTY_JSON_ARRAY, List.of(), outcomes);
        }
        JsonArray patch = JsonDiff.toJson(JsonDiff.diff(original, result));
        return new Decision(result, patch, List.of(), outcomes);
    }

    /** Runs the Reject rules against the request's object (the final one, after mutation). */
    public Decision validate(AdmissionRequest request) {
        JsonValue original = subject(request);
        var outcomes = new ArrayList<RuleOutcome>();
        var rejections = new ArrayList<Rejection>();
        if (original instanceof JsonObject object) {
            JsonValue current = withRefs(object, request);
            for (CompiledRule rule : rejectRules.candidates(request.namespace(), current, request.explain())) {
                if (!applies(rule, current, request, outcomes)) {
                    continue;
                }
                String message = null;
                String error = null;
                try {
                    message = rule.rejectMessage(current, request);
                } catch (RuntimeException e) {
                    // KubeMod still rejects, without a message.
                    error = "rejectMessage: " + (e.getMessage() == null ? e.toString() : e.getMessage());
                }
                rejections.add(new Rejection(rule.namespaceFor(request), rule.name, message));
                outcomes.add(new RuleOutcome(rule.id(), rule.tier, true, -1, null, JsonValue.EMPTY_JSON_ARRAY, error));
            }
        }
        return new Decision(original, JsonValue.EMPTY_JSON_ARRAY, rejections, outcomes);
    }

    /** Operation filter and match items; records why not when explaining. */
    private static boolean applies(CompiledRule rule, JsonValue object, AdmissionRequest request,
                                   List<RuleOutcome> outcomes) {
        if (!rule.operations.contains(request.operation())) {
            if (request.explain()) {
                outcomes.add(new RuleOutcome(rule.id(), rule.tier, false, -1, "operation " + request.operation()
                        + " is not in admissionOperations " + rule.operations, JsonValue.EMPTY_JSON_ARRAY, null));
            }
            return false;
        }
        for (int i = 0; i < rule.match.size(); i++) {
            String failure = rule.match.get(i).failure(object, request.explain());
            if (failure != null) {
                if (request.explain()) {
                    outcomes.add(new RuleOutcome(rule.id(), rule.tier, false, i, "spec.match[" + i + "] ("
                            + rule.match.get(i).select().expression() + "): " + failure,
                            JsonValue.EMPTY_JSON_ARRAY, null));
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

    private static JsonValue withRefs(JsonObject object, AdmissionRequest request) {
        if (request.namespaceRef() == null && request.nodeRef() == null) {
            return object;
        }
        var refs = Json.PROVIDER.createObjectBuilder();
        if (request.namespaceRef() != null) {
            refs.add("namespace", request.namespaceRef());
        }
        if (request.nodeRef() != null) {
            refs.add("node", request.nodeRef());
        }
        return JsonTree.with(object, SYNTHETIC_REFS, refs.build());
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
                Json.PROVIDER.createValue(Json.compact(lastApplied)));
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
        private String systemNamespace = "remold-system";
        private String kubemodSystemNamespace = "kubemod-system";
        private final Map<String, ModRule> rules = new LinkedHashMap<>();
        private final List<MutationStage> stages = new ArrayList<>();

        private Builder() {
        }

        /** A rule family run after the ModRule Patch rules, in the order stages are added. */
        public Builder stage(MutationStage stage) {
            stages.add(Objects.requireNonNull(stage));
            return this;
        }

        public Builder systemNamespace(String namespace) {
            this.systemNamespace = Objects.requireNonNull(namespace);
            return this;
        }

        public Builder kubemodSystemNamespace(String namespace) {
            this.kubemodSystemNamespace = Objects.requireNonNull(namespace);
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

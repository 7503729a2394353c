package io.remold.kinitiras;

import io.remold.api.AdmissionOperation;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Engine;
import io.remold.engine.MutationStage;
import io.remold.engine.Rejection;
import io.remold.engine.RuleFamily;
import io.remold.engine.RuleOutcome;
import io.remold.engine.StageContext;
import io.remold.engine.ValidationStage;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.List;
import java.util.Optional;

/**
 * The policies in force, run as kinitiras's managers run them. Mutation: the ClusterOverridePolicies, then the
 * OverridePolicies of the object's own namespace (of every namespace with
 * {@link KinitirasOptions#crossNamespaceOverrides}), each kind by name, each selected against the object as the kinds
 * before it left it, every form's patch applied at once; a policy that fails refuses the request (kinitiras answers
 * an error). Validation: the ClusterValidatePolicies by name; the first refusal is the answer, and one that fails
 * refuses too. With {@link KinitirasOptions#webhookLabel} neither runs for a request kinitiras's webhook
 * configuration would not send.
 */
final class KinitirasStage implements MutationStage, ValidationStage {
    private static final RuleFamily FAMILY = KinitirasFamily.FAMILY;
    private static final String UNLABELLED = "kinitiras's webhook configuration would not send it: neither the object"
            + " nor the old object is labelled " + KinitirasOptions.WEBHOOK_LABEL + ": enabled (--"
            + KinitirasOptions.WEBHOOK_LABEL_OPTION + ")";

    private final List<Policy> overrides;
    private final List<Policy> validations;
    private final HttpAnswers httpAnswers;
    private final KinitirasOptions options;

    /**
     * {@code overrides}: cluster policies then namespaced ones, each in its order; {@code validations} in order;
     * {@code httpAnswers} answers their http references; {@code options}, the administrator's.
     */
    KinitirasStage(List<Policy> overrides, List<Policy> validations, HttpAnswers httpAnswers,
                   KinitirasOptions options) {
        this.overrides = List.copyOf(overrides);
        this.validations = List.copyOf(validations);
        this.httpAnswers = httpAnswers;
        this.options = options;
    }

    @Override
    public RuleFamily family() {
        return FAMILY;
    }

    @Override
    public int ruleCount() {
        return overrides.size() + validations.size();
    }

    @Override
    public JsonObject mutate(JsonObject object, StageContext context) {
        AdmissionRequest request = context.request();
        if (!sent(request)) {
            overrides.forEach(policy -> explain(context, policy, UNLABELLED));
            return object;
        }
        JsonValue old = oldObject(request);
        JsonObject current = object;
        JsonObject afterClusterPolicies = null;
        for (Policy policy : overrides) {
            if (!policy.clusterWide() && afterClusterPolicies == null) {
                afterClusterPolicies = current;
            }
            // OverridePolicies are selected against what the cluster ones left (kinitiras's second pass)
            JsonObject selectedAgainst = policy.clusterWide() ? object : afterClusterPolicies;
            String namespace = namespace(selectedAgainst, request);
            Optional<String> skipped = skipped(policy, selectedAgainst, namespace, request.operation(), options);
            if (skipped.isPresent()) {
                explain(context, policy, skipped.get());
                continue;
            }
            JsonObject before = current;
            try {
                spent(context);
                for (OverrideRule rule : policy.overrideRules()) {
                    if (!rule.operations().targets(request.operation())) {
                        continue;
                    }
                    for (Overrider form : rule.forms()) {
                        List<JsonObject> patches = form.patches(input(request, current, old, context, policy));
                        if (!(GoJsonPatch.apply(current, patches) instanceof JsonObject patched)) {
                            throw new PolicyEvaluationException("the patch leaves no object");
                        }
                        current = patched;
                    }
                }
            } catch (PolicyEvaluationException | RuntimeException e) {
                failed(context, policy, e);
                return object;
            }
            JsonArray applied = before == current ? JsonValue.EMPTY_JSON_ARRAY : Engine.diff(before, current);
            context.outcomes().add(new RuleOutcome(FAMILY, policy.id(), 0, true, -1, null, applied, null, List.of(),
                    request.explain() ? held(policy, selectedAgainst, namespace, request.operation()) : List.of()));
        }
        return current;
    }

    @Override
    public void validate(JsonObject object, StageContext context) {
        AdmissionRequest request = context.request();
        if (!sent(request)) {
            validations.forEach(policy -> explain(context, policy, UNLABELLED));
            return;
        }
        JsonValue old = oldObject(request);
        String namespace = namespace(object, request);
        for (Policy policy : validations) {
            Optional<String> skipped = skipped(policy, object, namespace, request.operation(), options);
            if (skipped.isPresent()) {
                explain(context, policy, skipped.get());
                continue;
            }
            Optional<String> refusal;
            try {
                spent(context);
                refusal = refusal(policy, input(request, object, old, context, policy), request.operation());
            } catch (PolicyEvaluationException | RuntimeException e) {
                failed(context, policy, e);
                if (context.enforced(policy.id())) {
                    return;
                }
                continue;
            }
            if (refusal.isPresent()) {
                context.rejections().add(rejection(policy, refusal.get()));
                context.outcomes().add(new RuleOutcome(FAMILY, policy.id(), 0, true, -1, null,
                        JsonValue.EMPTY_JSON_ARRAY, null));
                // kinitiras stops at the first refusal; a Warn policy's admits, so the next policies still decide
                if (context.enforced(policy.id())) {
                    return;
                }
            }
        }
    }

    /** The first refusal of the policy's rules that target the operation, each form in order. */
    private static Optional<String> refusal(Policy policy, PolicyInput input, AdmissionOperation operation)
            throws PolicyEvaluationException {
        for (ValidateRule rule : policy.validateRules()) {
            if (!rule.operations().targets(operation)) {
                continue;
            }
            for (Validator form : rule.forms()) {
                Optional<String> refusal = form.refusal(input);
                if (refusal.isPresent()) {
                    return refusal;
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Whether kinitiras's webhook configuration would send the request, when {@code options} say the policies see
     * only those: its {@code objectSelector} holds for the object or the old object, as the API server evaluates it
     * (on a DELETE the object being deleted, a Namespace's own labels), and a request with neither is not sent.
     */
    private boolean sent(AdmissionRequest request) {
        return !options.webhookLabel() || labelled(request.object()) || labelled(request.oldObject());
    }

    private static boolean labelled(JsonValue object) {
        return object instanceof JsonObject o && o.get("metadata") instanceof JsonObject metadata
                && metadata.get("labels") instanceof JsonObject labels
                && labels.get(KinitirasOptions.WEBHOOK_LABEL) instanceof JsonString value
                && value.getString().equals("enabled");
    }

    /**
     * Why the policy does not apply, or empty when it does: another namespace's OverridePolicy (Remold's tenant
     * rule, unless {@code options} lift it; even then, as in kinitiras, no cluster-scoped object), no selector
     * matching (none at all selects everything), or no rule targeting the operation.
     */
    static Optional<String> skipped(Policy policy, JsonObject object, String namespace, AdmissionOperation operation,
                                    KinitirasOptions options) {
        if (!policy.clusterWide() && namespace.isEmpty()) {
            return Optional.of("an OverridePolicy changes only namespaced objects");
        }
        if (!policy.clusterWide() && !options.crossNamespaceOverrides() && !policy.namespace().equals(namespace)) {
            return Optional.of("an OverridePolicy changes only objects of its own namespace (without --"
                    + KinitirasOptions.CROSS_NAMESPACE_OPTION + ")");
        }
        if (!policy.selectors().isEmpty()
                && policy.selectors().stream().noneMatch(s -> s.matches(object, namespace))) {
            return Optional.of("no resource selector matches");
        }
        boolean targeted = policy.kind() == Policy.Kind.ClusterValidatePolicy
                ? policy.validateRules().stream().anyMatch(r -> r.operations().targets(operation))
                : policy.overrideRules().stream().anyMatch(r -> r.operations().targets(operation));
        return targeted ? Optional.empty() : Optional.of("no rule targets " + operation);
    }

    /** Why a policy applied, for an explanation: the first of its resource selectors that selects the object. */
    private static List<String> held(Policy policy, JsonObject object, String namespace,
                                     AdmissionOperation operation) {
        int i = 0;
        while (i < policy.selectors().size() && !policy.selectors().get(i).matches(object, namespace)) {
            i++;
        }
        return List.of((policy.selectors().isEmpty() ? "no resourceSelectors: every object it may change"
                : "resourceSelectors[" + i + "] selects the object") + "; an overrideRule targets " + operation);
    }

    /**
     * A policy that could not be applied refuses the request (kinitiras answers an error, and its webhooks fail
     * closed), naming it; a bug of a form (a runtime exception) too, without stopping the server.
     */
    private static void failed(StageContext context, Policy policy, Exception e) {
        String why = e.getMessage() != null ? e.getMessage() : e.toString();
        context.rejections().add(rejection(policy, why));
        context.outcomes().add(new RuleOutcome(FAMILY, policy.id(), 0, true, -1, null, JsonValue.EMPTY_JSON_ARRAY,
                why));
    }

    private static void explain(StageContext context, Policy policy, String reason) {
        if (context.explain()) {
            context.outcomes().add(new RuleOutcome(FAMILY, policy.id(), 0, false, -1, reason,
                    JsonValue.EMPTY_JSON_ARRAY, null));
        }
    }

    private static void spent(StageContext context) throws PolicyEvaluationException {
        if (System.nanoTime() - context.deadlineNanos() >= 0) {
            throw new PolicyEvaluationException("not run: the request budget is spent");
        }
    }

    private PolicyInput input(AdmissionRequest request, JsonValue object, JsonValue old, StageContext context,
                                     Policy policy) {
        return new PolicyInput(request.operation().name(), object, old,
                new KubeValueSources(context.references(), policy, httpAnswers, context.deadlineNanos()),
                context.deadlineNanos());
    }

    /** kinitiras passes the old object on UPDATE only (on DELETE the object is the old one). */
    private static JsonValue oldObject(AdmissionRequest request) {
        return request.operation() == AdmissionOperation.UPDATE && request.oldObject() != null
                ? request.oldObject() : JsonValue.NULL;
    }

    /** The object's namespace, or the request's when it has none (kinitiras fills it in before selecting). */
    static String namespace(JsonObject object, AdmissionRequest request) {
        if (object.get("metadata") instanceof JsonObject metadata && metadata.get("namespace") instanceof JsonString ns
                && !ns.getString().isEmpty()) {
            return ns.getString();
        }
        return request.namespace() == null ? "" : request.namespace();
    }

    /** Named {@code Kind/[namespace/]name} in the webhook's message, as outcomes name the policy. */
    private static Rejection rejection(Policy policy, String message) {
        String prefix = policy.clusterWide() ? policy.kind().name() : policy.kind() + "/" + policy.namespace();
        return new Rejection(prefix, policy.name(), message, FAMILY, policy.id());
    }
}

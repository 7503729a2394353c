package io.remold.kinitiras;

import io.remold.api.Reference;
import io.remold.engine.ReferenceException;
import io.remold.engine.ReferenceQuery;
import io.remold.engine.ReferenceResolver;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.Optional;

/**
 * A policy's {@code valueRef} sources for one request: {@code k8s} through the engine's reference source, with
 * ModRules' scope rules (a namespaced policy reads only its own namespace and no cluster-scoped kind; a cluster
 * policy reads any); {@code http} by what the family's owner answers, for a URL it allows (checked at every call: a
 * templated URL is known only now), by {@code deadlineNanos}.
 */
record KubeValueSources(ReferenceResolver resolver, Policy policy, HttpAnswers httpAnswers, long deadlineNanos)
        implements ValueSources {

    @Override
    public JsonValue kube(JsonObject reference) throws PolicyEvaluationException {
        ResourceSelector selector;
        try {
            selector = PolicyReader.selector(reference, "valueRef.k8s");
        } catch (InvalidPolicyException e) {
            throw new PolicyEvaluationException(e.getMessage(), e);
        }
        String namespace = selector.namespace();
        if (!policy.clusterWide()) {
            if (!namespace.isEmpty() && !namespace.equals(policy.namespace())) {
                throw new PolicyEvaluationException("valueRef.k8s.namespace: " + policy.id()
                        + " may read only its own namespace " + policy.namespace());
            }
            namespace = policy.namespace();
        }
        ReferenceQuery query = new ReferenceQuery(policy.id(), "valueRef", selector.apiVersion(), selector.kind(),
                namespace, selector.name().isEmpty() ? null : selector.name(),
                selector.name().isEmpty() ? selector.labelSelector().orElse(new Reference.Selector(null, null)) : null,
                policy.clusterWide());
        try {
            JsonValue value = resolver.resolve(query).value();
            return value == null ? JsonValue.NULL : value;
        } catch (ReferenceException e) {
            throw new PolicyEvaluationException("valueRef.k8s " + query.describe() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public JsonValue http(JsonObject reference) throws PolicyEvaluationException {
        HttpCall call = HttpCall.of(reference);
        Optional<String> refusal = httpAnswers.allowed().refusal(call.url());
        if (refusal.isPresent()) {
            throw new PolicyEvaluationException(refusal.get());
        }
        return httpAnswers.answer(call, deadlineNanos);
    }
}

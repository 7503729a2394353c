package io.remold.kinitiras;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

/**
 * Where a policy's {@code valueRef} data comes from, never by a call the policy chooses: the cluster's objects (the
 * server answers from informer caches within {@code --allow-references}; {@code eval} from {@code --cluster FILE}),
 * and HTTP (only under URL prefixes an administrator allows; {@code eval} from {@code --http URL=FILE}).
 */
public interface ValueSources {
    /**
     * The object a {@code k8s} reference names ({@link JsonValue#NULL} when there is none), or the list its label
     * selector selects. {@code reference} is the {@code ResourceSelector} of the policy, as written.
     */
    JsonValue kube(JsonObject reference) throws PolicyEvaluationException;

    /** The response body of an {@code http} reference ({@code HttpDataRef} as written), parsed as JSON. */
    JsonValue http(JsonObject reference) throws PolicyEvaluationException;
}

package io.remold.kinitiras;

import jakarta.json.JsonObject;

/**
 * A template's {@code valueRef} or {@code dataRef} that reads beyond the request ({@code from} {@code k8s} or
 * {@code http}): where the policy writes it, and its {@code ResourceSelector} or {@code HttpDataRef} as written. The
 * family tells from these, before any request, which kinds a policy reads and which URLs it calls.
 */
public record FetchedReference(String field, String from, JsonObject target) {
    /** {@code from} of a reference read from the cluster. */
    public static final String K8S = "k8s";
    /** {@code from} of a reference answered over HTTP. */
    public static final String HTTP = "http";
}

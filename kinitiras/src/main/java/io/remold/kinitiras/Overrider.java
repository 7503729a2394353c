package io.remold.kinitiras;

import jakarta.json.JsonObject;

import java.util.List;

/** One compiled overrider form of an override rule ({@code plaintext}, {@code cue}, {@code template}, ...). */
public interface Overrider {
    /** The JSON patch operations (RFC 6902 objects) this form makes for the request, in order; empty for none. */
    List<JsonObject> patches(PolicyInput input) throws PolicyEvaluationException;
}

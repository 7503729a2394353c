package io.remold.kinitiras;

import jakarta.json.JsonValue;

/**
 * What an overrider or a validation of a kinitiras policy sees of one admission request: the operation
 * ({@code CREATE}, {@code UPDATE}, {@code DELETE}), the object and the old object ({@link JsonValue#NULL} when the
 * operation has none), where its {@code valueRef}s read from, and the request's deadline ({@link System#nanoTime()}),
 * which a form that may run long (CUE) must not pass.
 */
public record PolicyInput(String operation, JsonValue object, JsonValue oldObject, ValueSources sources,
                          long deadlineNanos) {
    /** An evaluation outside any request (tests, one-off checks): no deadline beyond the forms' own bounds. */
    public PolicyInput(String operation, JsonValue object, JsonValue oldObject, ValueSources sources) {
        this(operation, object, oldObject, sources, System.nanoTime() + (Long.MAX_VALUE >> 2));
    }
}

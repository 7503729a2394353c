package io.remold.templating;

import jakarta.json.JsonValue;

/** A compiled patch value: renders to a JSON value. Thread-safe. */
public interface ValueTemplate {
    JsonValue render(TemplateContext context);

    /** True when the source has no tags; {@link #render} then returns the same value every time. */
    boolean isConstant();
}

package io.remold.templating;

import jakarta.json.JsonValue;
import java.util.List;

/**
 * What a template can see: {@code Target}, {@code Namespace}, {@code SelectedItem}, {@code SelectKeyParts},
 * {@code Operation} and {@code OldTarget}, and {@code References}: the target's {@code syntheticRefs} (a rule's
 * references, the namespace and the node). Any of these may be null; a missing value renders empty.
 * {@code external} is where the function {@code external} asks providers: the admission request's view
 * ({@link ExternalData#forRequest(boolean)}), never null. {@code budget} counts what renders produce: the
 * admission request's ({@link RenderBudget#forRequest()}); null: each render counts against a budget of its own.
 */
public record TemplateContext(JsonValue target, String namespace, JsonValue selectedItem,
                              List<Object> selectKeyParts, String operation, JsonValue oldTarget,
                              ExternalData external, RenderBudget budget) {
    /** Where the engine puts a rule's references (and the namespace and node) in the object it evaluates. */
    public static final String SYNTHETIC_REFS = "syntheticRefs";

    public TemplateContext {
        selectKeyParts = selectKeyParts == null ? List.of() : List.copyOf(selectKeyParts);
        external = external == null ? ExternalData.NONE : external;
    }

    /** A context each of whose renders counts against a budget of its own. */
    public TemplateContext(JsonValue target, String namespace, JsonValue selectedItem, List<Object> selectKeyParts,
                           String operation, JsonValue oldTarget, ExternalData external) {
        this(target, namespace, selectedItem, selectKeyParts, operation, oldTarget, external, null);
    }

    /** A context without external data: the function {@code external} fails (closed) for every key. */
    public TemplateContext(JsonValue target, String namespace, JsonValue selectedItem, List<Object> selectKeyParts,
                           String operation, JsonValue oldTarget) {
        this(target, namespace, selectedItem, selectKeyParts, operation, oldTarget, ExternalData.NONE, null);
    }
}

package io.remold.templating;

import jakarta.json.JsonValue;
import java.util.List;

/**
 * What a template can see: {@code Target}, {@code Namespace}, {@code SelectedItem}, {@code SelectKeyParts},
 * {@code Operation} and {@code OldTarget}, and {@code References}: the target's {@code syntheticRefs} (a rule's
 * references, the namespace and the node). Any component may be null; a missing value renders empty.
 */
public record TemplateContext(JsonValue target, String namespace, JsonValue selectedItem,
                              List<Object> selectKeyParts, String operation, JsonValue oldTarget) {
    /** Where the engine puts a rule's references (and the namespace and node) in the object it evaluates. */
    public static final String SYNTHETIC_REFS = "syntheticRefs";

    public TemplateContext {
        selectKeyParts = selectKeyParts == null ? List.of() : List.copyOf(selectKeyParts);
    }
}

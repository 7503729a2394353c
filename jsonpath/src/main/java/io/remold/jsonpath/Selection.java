package io.remold.jsonpath;

import jakarta.json.JsonValue;
import java.util.List;

/**
 * One result of {@link JsonPath#select}.
 *
 * @param value    the selected value
 * @param path     every step from the root: String keys and Integer indices
 * @param captures the key or index taken at each wildcard / filter / recursive-descent / union / slice step, in order
 *                 (the values of {@code #0}, {@code #1}, ... in a patch path and of SelectKeyParts in templates)
 */
public record Selection(JsonValue value, List<Object> path, List<Object> captures) {
    public Selection {
        path = List.copyOf(path);
        captures = List.copyOf(captures);
    }
}

package io.remold.engine.convert;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;

import static io.remold.engine.convert.Jsonpath.all;
import static io.remold.engine.convert.Jsonpath.list;
import static io.remold.engine.convert.Jsonpath.literal;
import static io.remold.engine.convert.Jsonpath.member;

/** Kubernetes label selectors ({@code matchLabels}, {@code matchExpressions}) as ModRule boolean expressions. */
public final class LabelSelectors {
    private LabelSelectors() {
    }

    /**
     * A valid label selector over the string labels at {@code labels} (a JSONPath): every requirement holds, as
     * Kubernetes reads them (NotIn and DoesNotExist hold where the label is missing); {@code true} when it has none.
     */
    public static String expression(JsonObject selector, String labels) {
        var terms = new ArrayList<String>();
        if (selector.get("matchLabels") instanceof JsonObject matchLabels) {
            matchLabels.forEach((key, value) ->
                    terms.add(labels + member(key) + " == " + literal(((JsonString) value).getString())));
        }
        if (selector.get("matchExpressions") instanceof JsonArray expressions) {
            for (JsonValue value : expressions) {
                JsonObject e = (JsonObject) value;
                String label = labels + member(e.getString("key", ""));
                List<String> values = e.get("values") instanceof JsonArray array
                        ? array.getValuesAs(JsonString.class).stream().map(JsonString::getString).toList()
                        : List.of();
                terms.add(switch (e.getString("operator", "")) {
                    // Guarded: 'in' with a missing left side is no boolean.
                    case "In" -> "(isDefined(" + label + ") && " + label + " in " + list(values) + ")";
                    case "NotIn" -> "(isUndefined(" + label + ") || !(" + label + " in " + list(values) + "))";
                    case "Exists" -> "isDefined(" + label + ")";
                    default -> "isUndefined(" + label + ")";
                });
            }
        }
        return all(terms);
    }
}

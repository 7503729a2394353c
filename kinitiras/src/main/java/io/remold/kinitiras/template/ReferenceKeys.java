package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code {{a.b.c}}} keys in a {@code k8s} or {@code http} reference, replaced by the object's string at that
 * path before the reference is fetched, as kinitiras's {@code parseAndGetRefValue} does: in a selector's
 * {@code name}, {@code namespace} and label selector values, in an http {@code url} and {@code params}. A key the
 * object lacks leaves the reference unfetched (empty: kinitiras's data is then an empty object); a value that is
 * not a string, or an empty key, fails the policy.
 */
final class ReferenceKeys {
    private ReferenceKeys() {
    }

    /** A {@code ResourceSelector} with its keys replaced, or empty when the object lacks one. */
    static Optional<JsonObject> k8s(JsonObject selector, JsonValue object) throws PolicyEvaluationException {
        JsonObjectBuilder out = Json.createObjectBuilder(selector);
        if (!replace(selector, List.of("name", "namespace"), List.of(), object, out)) {
            return Optional.empty();
        }
        if (selector.get("labelSelector") instanceof JsonObject labels) {
            JsonObjectBuilder rendered = Json.createObjectBuilder(labels);
            if (!replace(labels, List.of(), List.of("matchLabels"), object, rendered)) {
                return Optional.empty();
            }
            if (labels.get("matchExpressions") instanceof JsonArray expressions) {
                JsonArrayBuilder list = Json.createArrayBuilder();
                for (JsonValue expression : expressions) {
                    if (expression instanceof JsonObject e && e.get("values") instanceof JsonArray values) {
                        JsonArrayBuilder replaced = Json.createArrayBuilder();
                        for (JsonValue value : values) {
                            Optional<String> text = replace(value, object);
                            if (text.isEmpty()) {
                                return Optional.empty();
                            }
                            replaced.add(text.get());
                        }
                        list.add(Json.createObjectBuilder(e).add("values", replaced));
                    } else {
                        list.add(expression);
                    }
                }
                rendered.add("matchExpressions", list);
            }
            out.add("labelSelector", rendered);
        }
        return Optional.of(out.build());
    }

    /** An {@code HttpDataRef} with its {@code url} and {@code params} keys replaced, or empty (no call). */
    static Optional<JsonObject> http(JsonObject reference, JsonValue object) throws PolicyEvaluationException {
        JsonObjectBuilder out = Json.createObjectBuilder(reference);
        return replace(reference, List.of("url"), List.of("params"), object, out) ? Optional.of(out.build())
                : Optional.empty();
    }

    /**
     * Writes to {@code out} the {@code texts} fields of {@code from} and each value of its {@code maps} fields with
     * their keys replaced; false when the object lacks a key.
     */
    private static boolean replace(JsonObject from, List<String> texts, List<String> maps, JsonValue object,
                                   JsonObjectBuilder out) throws PolicyEvaluationException {
        for (String field : texts) {
            if (from.get(field) instanceof JsonString text) {
                Optional<String> value = replace(text, object);
                if (value.isEmpty()) {
                    return false;
                }
                out.add(field, value.get());
            }
        }
        for (String field : maps) {
            if (from.get(field) instanceof JsonObject map) {
                JsonObjectBuilder values = Json.createObjectBuilder();
                for (Map.Entry<String, JsonValue> entry : map.entrySet()) {
                    Optional<String> value = replace(entry.getValue(), object);
                    if (value.isEmpty()) {
                        return false;
                    }
                    values.add(entry.getKey(), value.get());
                }
                out.add(field, values);
            }
        }
        return true;
    }

    /** A value of a reference: a string with its key replaced; another scalar as its text. */
    private static Optional<String> replace(JsonValue value, JsonValue object) throws PolicyEvaluationException {
        return value instanceof JsonString s ? replace(s.getString(), object) : Optional.of(value.toString());
    }

    /** The text with its first key replaced by the object's string there; empty when the object has none. */
    static Optional<String> replace(String text, JsonValue object) throws PolicyEvaluationException {
        if (text.contains("{{}}")) {
            throw new PolicyEvaluationException("invalid ref key " + text);
        }
        int[] key = key(text);
        if (key == null) {
            return Optional.of(text);
        }
        String path = text.substring(key[0] + 2, key[1] - 2);
        JsonValue value = object;
        for (String step : path.split("\\.", -1)) {
            if (value instanceof JsonObject map) {
                value = map.get(step);
            } else {
                throw new PolicyEvaluationException("ref key " + path + ": " + step + " is not in an object");
            }
            if (value == null) {
                return Optional.empty();
            }
        }
        if (!(value instanceof JsonString s)) {
            throw new PolicyEvaluationException("ref key " + path + ": the value is not a string");
        }
        return Optional.of(text.substring(0, key[0]) + s.getString() + text.substring(key[1]));
    }

    /**
     * Where the key is, braces included ({start, end}), or null. kinitiras's POSIX pattern is leftmost-longest and
     * its dot stops at a newline: the key runs from the first double opening brace that a double closing brace
     * follows on its line to the last such closing pair. In linear time, as a policy's text is a tenant's.
     */
    private static int[] key(String text) {
        for (int open = text.indexOf("{{"); open >= 0; open = text.indexOf("{{", open + 1)) {
            int lineEnd = text.indexOf('\n', open);
            int close = text.lastIndexOf("}}", (lineEnd < 0 ? text.length() : lineEnd) - 2);
            if (close >= open + 2) {
                return new int[] {open, close + 2};
            }
            if (lineEnd < 0) {
                return null;
            }
            open = lineEnd;
        }
        return null;
    }
}

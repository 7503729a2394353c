package io.remold.kinitiras;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A {@code fieldSelector} (newest kinitiras engine): {@code matchFields} (field equals value) and {@code
 * matchExpressions} (In, NotIn, Exists, DoesNotExist), all of which must hold. A field is a dotted path of string
 * values; the segment after {@code .annotations.} is one key, dots and all, so annotation keys can be named.
 */
record FieldSelector(Map<String, String> matchFields, List<Requirement> matchExpressions) {
    FieldSelector {
        matchFields = Map.copyOf(matchFields);
        matchExpressions = List.copyOf(matchExpressions);
    }

    enum Operator { In, NotIn, Exists, DoesNotExist }

    record Requirement(String field, Operator operator, List<String> values) {
        Requirement {
            values = List.copyOf(values);
        }

        boolean matches(JsonObject object) {
            Lookup found = lookup(object, field);
            if (found.failed()) {
                return false;
            }
            return switch (operator) {
                case Exists -> found.value != null;
                case DoesNotExist -> found.value == null;
                case In -> found.value != null && values.contains(found.value);
                // kinitiras compares what it found, the empty text when nothing, with each listed value
                case NotIn -> !values.contains(found.value == null ? "" : found.value);
            };
        }
    }

    boolean matches(JsonObject object) {
        for (Map.Entry<String, String> e : matchFields.entrySet()) {
            if (!e.getValue().equals(lookup(object, e.getKey()).value)) {
                return false;
            }
        }
        return matchExpressions.stream().allMatch(r -> r.matches(object));
    }

    /**
     * What a field holds: a string ({@code value}), nothing ({@link #MISSING}), or {@link #FAILED} when a step is
     * not an object or the value not a string (kinitiras's lookup errs, and the selector then does not match).
     */
    record Lookup(String value, boolean failed) {
        static final Lookup MISSING = new Lookup(null, false);
        static final Lookup FAILED = new Lookup(null, true);
    }

    /** The segment after {@code .annotations.} is one key, dots and all, as kinitiras splits it. */
    static Lookup lookup(JsonObject object, String field) {
        int annotations = field.indexOf(".annotations.");
        String dotted = annotations < 0 ? field : field.substring(0, annotations);
        var path = new ArrayList<>(List.of(dotted.split("\\.", -1)));
        if (annotations >= 0) {
            path.add("annotations");
            path.add(field.substring(annotations + ".annotations.".length()));
        }
        JsonValue current = object;
        for (String step : path) {
            if (!(current instanceof JsonObject o)) {
                return Lookup.FAILED;
            }
            if (!o.containsKey(step)) {
                return Lookup.MISSING;
            }
            current = o.get(step);
        }
        return current instanceof JsonString s ? new Lookup(s.getString(), false) : Lookup.FAILED;
    }
}

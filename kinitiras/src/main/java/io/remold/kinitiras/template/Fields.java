package io.remold.kinitiras.template;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.Set;
import java.util.TreeSet;

/** Typed reads of a template's fields, as kinitiras's CRD schema and Go decoding accept them; errors name the field. */
final class Fields {
    /** Longest string a template may hold: a rendered CUE text is bounded, so is the work it describes. */
    static final int MAX_TEXT = 4096;
    /** Most elements of one list in a template (tolerations, terms, values). */
    static final int MAX_ITEMS = 256;
    /** Most patch operations one template may write for a request (tolerations multiply by the object's). */
    static final int MAX_PATCHES = 4096;

    private Fields() {
    }

    static String at(String field, String name) {
        return field + "." + name;
    }

    static String at(String field, int index) {
        return field + "[" + index + "]";
    }

    /** The string field, or "" when it is absent or null (Go's zero value). */
    static String text(JsonObject object, String name, String field) {
        JsonValue value = object.get(name);
        if (value == null || value == JsonValue.NULL) {
            return "";
        }
        if (!(value instanceof JsonString s)) {
            throw new InvalidTemplateException(at(field, name), "must be a string");
        }
        return bounded(s.getString(), at(field, name));
    }

    static String bounded(String text, String field) {
        if (text.length() > MAX_TEXT) {
            throw new InvalidTemplateException(field, "longer than " + MAX_TEXT + " characters");
        }
        return text;
    }

    /** The string field, which must be one of {@code allowed} (kinitiras's CRD enum). */
    static String oneOf(JsonObject object, String name, String field, Set<String> allowed) {
        String value = text(object, name, field);
        if (!allowed.contains(value)) {
            throw new InvalidTemplateException(at(field, name), value.isEmpty()
                    ? "Required value" : "Unsupported value: \"" + value + "\": supported values: "
                    + new TreeSet<>(allowed));
        }
        return value;
    }

    /** The object field, or null when absent or null. */
    static JsonObject object(JsonObject object, String name, String field) {
        JsonValue value = object.get(name);
        if (value == null || value == JsonValue.NULL) {
            return null;
        }
        if (!(value instanceof JsonObject o)) {
            throw new InvalidTemplateException(at(field, name), "must be an object");
        }
        return o;
    }

    /** The list field (empty when absent or null), at most {@link #MAX_ITEMS} long. */
    static JsonArray array(JsonObject object, String name, String field) {
        JsonValue value = object.get(name);
        if (value == null || value == JsonValue.NULL) {
            return JsonValue.EMPTY_JSON_ARRAY;
        }
        if (!(value instanceof JsonArray a)) {
            throw new InvalidTemplateException(at(field, name), "must be a list");
        }
        if (a.size() > MAX_ITEMS) {
            throw new InvalidTemplateException(at(field, name), "more than " + MAX_ITEMS + " items");
        }
        return a;
    }

    static long integer(JsonValue value, String field, long min, long max) {
        if (!(value instanceof JsonNumber n) || !n.isIntegral()) {
            throw new InvalidTemplateException(field, "must be an integer");
        }
        try {
            long v = n.bigDecimalValue().longValueExact();
            if (v < min || v > max) {
                throw new InvalidTemplateException(field, "out of range");
            }
            return v;
        } catch (ArithmeticException e) {
            throw new InvalidTemplateException(field, "out of range");
        }
    }

    static String string(JsonValue value, String field) {
        if (!(value instanceof JsonString s)) {
            throw new InvalidTemplateException(field, "must be a string");
        }
        return bounded(s.getString(), field);
    }

    /**
     * {@code text} as kinitiras writes it between the quotes of a CUE string: a quote or a line break would end the
     * string (kinitiras's rendered CUE then fails to compile), and a backslash would be read as an escape.
     */
    static String cueStringContent(String text, String field) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\' || c == '\n' || c == '\r') {
                throw new InvalidTemplateException(field, "cannot hold '" + (c == '"' || c == '\\' ? c : ' ')
                        + "' or a line break: kinitiras writes it into a CUE string as it is");
            }
        }
        return text;
    }
}

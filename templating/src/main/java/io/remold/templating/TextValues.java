package io.remold.templating;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.util.Map;
import java.util.TreeMap;

/** How values become text: strings as they are, lists and objects the way Go's {@code %v} prints them (as KubeMod did). */
final class TextValues {
    /**
     * Most characters one rendered text (a value, a message, or a function's result) may have: 1 MiB, the most a
     * ConfigMap or Secret holds in all, so as much text as any object the API server stores can carry.
     */
    static final int MAX_RENDERED_CHARS = 1024 * 1024;

    private TextValues() {
    }

    /**
     * Whether {@code input.replace(target, replacement)} stays within {@link #MAX_RENDERED_CHARS}, found before
     * replacing: an empty target or a long replacement multiplies the input.
     */
    static boolean replacementFits(String input, String target, String replacement) {
        long occurrences = 0;
        if (target.isEmpty()) {
            occurrences = input.length() + 1L;
        } else if (replacement.length() > target.length()) {
            for (int at = input.indexOf(target); at >= 0; at = input.indexOf(target, at + target.length())) {
                occurrences++;
            }
        }
        return input.length() + occurrences * (replacement.length() - target.length()) <= MAX_RENDERED_CHARS;
    }

    /** The text, or an error at {@code offset} when it is longer than {@link #MAX_RENDERED_CHARS}. */
    static <T extends CharSequence> T rendered(T text, SourceText source, int offset) {
        if (text.length() > MAX_RENDERED_CHARS) {
            throw source.error("renders more than " + MAX_RENDERED_CHARS + " characters", offset);
        }
        return text;
    }

    static String text(JsonValue value) {
        if (value == null || value == JsonValue.NULL) {
            return "";
        }
        if (value instanceof JsonString string) {
            return string.getString();
        }
        StringBuilder out = new StringBuilder();
        appendValue(out, value);
        return out.toString();
    }

    /** Appends {@link #text} of the value. */
    static void append(StringBuilder out, JsonValue value) {
        if (value != null && value != JsonValue.NULL) {
            appendValue(out, value);
        }
    }

    /** Sprig's notion of empty: missing, null, false, 0, "", an empty list or object. */
    static boolean isEmpty(JsonValue value) {
        if (value == null) {
            return true;
        }
        return switch (value) {
            case JsonString string -> string.getString().isEmpty();
            case JsonNumber number -> number.bigDecimalValue().signum() == 0;
            case JsonArray array -> array.isEmpty();
            case JsonObject object -> object.isEmpty();
            default -> value == JsonValue.NULL || value == JsonValue.FALSE;
        };
    }

    /** Mustache truthiness for sections: like {@link #isEmpty} except that the number 0 counts as a value. */
    static boolean isFalsey(JsonValue value) {
        return !(value instanceof JsonNumber) && isEmpty(value);
    }

    private static void appendValue(StringBuilder out, JsonValue value) {
        switch (value) {
            case JsonString string -> out.append(string.getString());
            case JsonNumber number -> out.append(number(number));
            case JsonArray array -> {
                out.append('[');
                for (int i = 0; i < array.size(); i++) {
                    if (i > 0) {
                        out.append(' ');
                    }
                    appendValue(out, array.get(i));
                }
                out.append(']');
            }
            case JsonObject object -> {
                out.append("map[");
                boolean first = true;
                for (Map.Entry<String, JsonValue> entry : new TreeMap<>(object).entrySet()) {
                    if (!first) {
                        out.append(' ');
                    }
                    first = false;
                    out.append(entry.getKey()).append(':');
                    appendValue(out, entry.getValue());
                }
                out.append(']');
            }
            default -> out.append(value == JsonValue.NULL ? "<nil>" : value.toString());
        }
    }

    /**
     * Widest exponent a number prints in plain notation with: a float64 spans 10^-324 to 10^308. A wider one only
     * comes from a rule's own text (the JSON parser refuses it in objects) and prints in exponent notation, never
     * as the billion characters {@code 1e999999999} would take.
     */
    static final int MAX_PLAIN_EXPONENT = 400;

    /** Integral numbers with all their digits, others in plain notation without trailing zeros. */
    private static String number(JsonNumber number) {
        if (number.isIntegral()) {
            return number.bigIntegerValue().toString();
        }
        BigDecimal value = number.bigDecimalValue().stripTrailingZeros();
        long exponent = (long) value.precision() - value.scale() - 1;
        return Math.abs(exponent) <= MAX_PLAIN_EXPONENT ? value.toPlainString() : value.toString();
    }
}

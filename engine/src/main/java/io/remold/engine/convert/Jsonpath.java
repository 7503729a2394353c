package io.remold.engine.convert;

import jakarta.json.spi.JsonProvider;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Pieces of the JSONPath expressions and JSON Pointers the converted rules are written with. */
public final class Jsonpath {
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final String REGEX_META = "\\.+*?()|[]{}^$";

    private Jsonpath() {
    }

    /** A JSON string literal, which the JSONPath dialect reads with JSON escapes. */
    public static String literal(String text) {
        return JSON.createValue(text).toString();
    }

    /** {@code ["a", "b"]}. */
    public static String list(List<String> texts) {
        return texts.stream().map(Jsonpath::literal).collect(Collectors.joining(", ", "[", "]"));
    }

    /** A member step: {@code .name}, or {@code ["app.kubernetes.io/name"]} when the key needs brackets. */
    public static String member(String key) {
        return PLAIN_KEY.matcher(key).matches() ? "." + key : "[" + literal(key) + "]";
    }

    /** One JSON Pointer token ({@code ~} and {@code /} escaped). */
    public static String pointerToken(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    /** An RE2 regular expression matching {@code text} literally. */
    public static String quoteRegex(String text) {
        var out = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (REGEX_META.indexOf(c) >= 0) {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    /** {@code a || b || ...} in parentheses, or {@code a} alone. */
    public static String any(List<String> terms) {
        return terms.size() == 1 ? terms.getFirst() : terms.stream().collect(Collectors.joining(" || ", "(", ")"));
    }

    /** {@code a && b && ...} in parentheses, or {@code a} alone; {@code true} for none. */
    public static String all(List<String> terms) {
        if (terms.isEmpty()) {
            return "true";
        }
        return terms.size() == 1 ? terms.getFirst() : terms.stream().collect(Collectors.joining(" && ", "(", ")"));
    }
}

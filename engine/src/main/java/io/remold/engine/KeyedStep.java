package io.remold.engine;

import io.remold.json.JsonTree;
import io.remold.jsonpath.JsonPath;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.io.StringReader;
import java.math.BigDecimal;
import java.util.regex.Pattern;

/**
 * A patch path step into a list by key, {@code [key=value]}: the elements that are objects whose {@code key} equals
 * {@code value}, so that a rule can address {@code /spec/containers/[name=proxy]/image} without knowing the index
 * (what Kubernetes' list-map keys and Gatekeeper's {@code [name: proxy]} locations do). The value is a number when
 * it reads as a JSON number, a string when it is a quoted JSON string ({@code [name="80"]}), and otherwise the text
 * as it is. On an object the same token is just a key, so paths written before keyed steps keep their meaning.
 */
record KeyedStep(String key, JsonValue value) {
    private static final Pattern NUMBER = Pattern.compile("-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?");

    /**
     * The step a pointer token stands for, or null when the token is not {@code [key=value]}. A quoted value that is
     * not a JSON string (possible only through a {@code #N} capture: rule admission refuses the others) fails the
     * operation.
     */
    static KeyedStep parse(String token) throws JsonPatcher.PatchException {
        int equals = token.indexOf('=');
        if (token.length() < 4 || token.charAt(0) != '[' || token.charAt(token.length() - 1) != ']' || equals < 2) {
            return null;
        }
        String text = token.substring(equals + 1, token.length() - 1);
        try {
            return new KeyedStep(token.substring(1, equals), value(text));
        } catch (RuntimeException e) {
            throw new JsonPatcher.PatchException("the key value " + text + " of " + token
                    + " is not a valid JSON string");
        }
    }

    /** Why a token that looks like a keyed step ({@code [...]}) is not one, or null when it is fine. */
    static String problem(String token) {
        if (token.length() < 2 || token.charAt(0) != '[' || token.charAt(token.length() - 1) != ']') {
            return null;
        }
        int equals = token.indexOf('=');
        if (token.length() < 4 || equals < 2) {
            return "a list step by key is [key=value], with a key before the =";
        }
        String text = token.substring(equals + 1, token.length() - 1);
        if (text.startsWith("\"") && !text.contains("#") && !isJsonString(text)) {
            return "the key value " + text + " is not a valid JSON string";
        }
        return null;
    }

    private static boolean isJsonString(String text) {
        if (text.length() < 2 || !text.endsWith("\"")) {
            return false;
        }
        try {
            value(text);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static JsonValue value(String text) {
        if (NUMBER.matcher(text).matches()) {
            return Json.PROVIDER.createValue(new BigDecimal(text));
        }
        if (text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"")) {
            try (var reader = Json.PROVIDER.createReader(new StringReader(text))) {
                return reader.readValue();
            }
        }
        return Json.PROVIDER.createValue(text);
    }

    /** Whether {@code element} is an object with this key and value (numbers compare by value). */
    boolean matches(JsonValue element) {
        return element instanceof JsonObject object && object.get(key) instanceof JsonValue found
                && JsonPath.sameValue(found, value);
    }

    /** The element an add creates when none has the key: just the key. */
    JsonValue element() {
        return JsonTree.with(JsonValue.EMPTY_JSON_OBJECT, key, value);
    }

    @Override
    public String toString() {
        return key + "=" + value;
    }
}

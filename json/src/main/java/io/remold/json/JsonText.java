package io.remold.json;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.Map;

/** Compact JSON text of a tree, keys in document order, strings escaped the way Parsson or Go writes them. */
final class JsonText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** Which characters of a string are written as escapes. */
    enum Escaping {
        /** What JSON requires (quote, backslash, control characters): character for character Parsson's text. */
        PARSSON,
        /**
         * What Go's encoding/json escapes: the same, {@code \b} and {@code \f} as {@code \u0008} and {@code \u000c},
         * and also {@code <}, {@code >}, {@code &}, U+2028 and U+2029 (its HTML-safe default).
         */
        GO
    }

    private JsonText() {
    }

    static String write(JsonValue value, Escaping escaping) {
        var sb = new StringBuilder(256);
        write(value, escaping, sb);
        return sb.toString();
    }

    private static void write(JsonValue value, Escaping escaping, StringBuilder sb) {
        switch (value) {
            case JsonObject object -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<String, JsonValue> e : object.entrySet()) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    quote(e.getKey(), escaping, sb);
                    sb.append(':');
                    write(e.getValue(), escaping, sb);
                }
                sb.append('}');
            }
            case JsonArray array -> {
                sb.append('[');
                for (int i = 0; i < array.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    write(array.get(i), escaping, sb);
                }
                sb.append(']');
            }
            case JsonString string -> quote(string.getString(), escaping, sb);
            default -> sb.append(value);
        }
    }

    static void quote(String s, Escaping escaping, StringBuilder sb) {
        sb.append('"');
        boolean go = escaping == Escaping.GO;
        int run = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\' && !(go && htmlUnsafe(c))) {
                continue;
            }
            sb.append(s, run, i);
            run = i + 1;
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append(go ? "\\u0008" : "\\b");
                case '\f' -> sb.append(go ? "\\u000c" : "\\f");
                default -> sb.append("\\u").append(HEX[c >> 12]).append(HEX[c >> 8 & 0xf])
                        .append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
            }
        }
        sb.append(s, run, s.length()).append('"');
    }

    private static boolean htmlUnsafe(char c) {
        return c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029';
    }
}

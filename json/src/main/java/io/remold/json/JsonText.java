package io.remold.json;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.Map;

/** Compact JSON text of a tree, character for character what Parsson writes for the same values. */
final class JsonText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonText() {
    }

    static String write(JsonValue value) {
        var sb = new StringBuilder(256);
        write(value, sb);
        return sb.toString();
    }

    private static void write(JsonValue value, StringBuilder sb) {
        switch (value) {
            case JsonObject object -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<String, JsonValue> e : object.entrySet()) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    quote(e.getKey(), sb);
                    sb.append(':');
                    write(e.getValue(), sb);
                }
                sb.append('}');
            }
            case JsonArray array -> {
                sb.append('[');
                for (int i = 0; i < array.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    write(array.get(i), sb);
                }
                sb.append(']');
            }
            case JsonString string -> quote(string.getString(), sb);
            default -> sb.append(value);
        }
    }

    /** Escapes only what JSON requires: quote, backslash and control characters. */
    static void quote(String s, StringBuilder sb) {
        sb.append('"');
        int run = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            sb.append(s, run, i);
            run = i + 1;
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
        }
        sb.append(s, run, s.length()).append('"');
    }
}

package io.remold.kinitiras;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The HTTP request an {@code http} reference ({@code HttpDataRef}, its keys replaced) makes, as kinitiras makes it:
 * the {@code url} as written ({@code written}) followed by {@code ?} and the {@code params} encoded as Go's
 * {@code url.Values.Encode} does (sorted by name); the method upper-cased, GET when empty; the headers, and
 * {@code Authorization: Bearer} the {@code auth}'s {@code staticToken} or else its {@code token}; the JSON body as
 * written, whatever the method.
 */
public record HttpCall(String written, URI url, String method, Map<String, String> headers, Optional<String> body) {
    public HttpCall {
        headers = Map.copyOf(headers);
    }

    /** The call of {@code reference}, or why it cannot be made. */
    public static HttpCall of(JsonObject reference) throws PolicyEvaluationException {
        String written = text(reference, "url");
        var query = new StringBuilder();
        if (reference.get("params") instanceof JsonObject params && !params.isEmpty()) {
            var sorted = new TreeMap<String, String>();
            params.forEach((name, value) -> sorted.put(name, value instanceof JsonString s ? s.getString()
                    : value.toString()));
            sorted.forEach((name, value) -> query.append(query.isEmpty() ? "?" : "&").append(escape(name))
                    .append('=').append(escape(value)));
        }
        URI url;
        try {
            url = new URI(written + query);
        } catch (URISyntaxException e) {
            throw new PolicyEvaluationException("http valueRef url " + written + ": not a URL: " + e.getMessage());
        }
        String method = text(reference, "method").toUpperCase(Locale.ROOT);
        if (method.isEmpty()) {
            method = "GET";
        }
        if (!method.equals("GET") && !method.equals("POST")) {
            throw new PolicyEvaluationException("http valueRef method " + method + ": only GET and POST");
        }
        var headers = new LinkedHashMap<String, String>();
        if (reference.get("header") instanceof JsonObject header) {
            header.forEach((name, value) -> headers.put(name, value instanceof JsonString s ? s.getString()
                    : value.toString()));
        }
        if (reference.get("auth") instanceof JsonObject auth) {
            String token = !text(auth, "staticToken").isEmpty() ? text(auth, "staticToken") : text(auth, "token");
            if (token.isEmpty()) {
                throw new PolicyEvaluationException("http valueRef auth: no available token (staticToken or token)");
            }
            headers.put("Authorization", "Bearer " + token);
        }
        JsonValue body = reference.get("body");
        return new HttpCall(written, url, method, headers,
                body == null || body == JsonValue.NULL ? Optional.empty() : Optional.of(body.toString()));
    }

    private static String text(JsonObject object, String name) {
        return object.get(name) instanceof JsonString s ? s.getString() : "";
    }

    /** Go's {@code url.QueryEscape}: letters, digits and {@code -_.~} as they are, space as {@code +}, else %XX. */
    static String escape(String text) {
        var out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-_.~".indexOf(c) >= 0) {
                out.append((char) c);
            } else if (c == ' ') {
                out.append('+');
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return out.toString();
    }
}

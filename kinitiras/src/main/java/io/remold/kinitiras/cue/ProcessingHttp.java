package io.remold.kinitiras.cue;

import io.remold.cue.CueEvaluator;
import io.remold.cue.CueException;
import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.ValueSources;
import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParsingException;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/**
 * A policy's {@code processing.http} task sent as the {@code http} reference it amounts to ({@code HttpDataRef}:
 * {@code url}, {@code method}, {@code header}, a JSON {@code body}) through the request's {@link ValueSources}, so
 * it reaches only what an administrator allows, as a {@code valueRef} does. The task's {@code trailer} is not sent
 * (trailers follow a streamed body, which a reference has not); a {@code tls_config} is refused, the server's own
 * trust applying.
 */
record ProcessingHttp(ValueSources sources) implements CueEvaluator.HttpTasks {
    private static final JsonProvider JSON = JsonProvider.provider();
    @Override
    public JsonValue call(JsonObject task) throws CueException {
        if (task.containsKey("tls_config")) {
            throw new CueException("processing.http.tls_config is not supported: the server's trust applies");
        }
        JsonObjectBuilder reference = JSON.createObjectBuilder().add("url", text(task, "url"))
                .add("method", task.containsKey("method") ? text(task, "method") : "GET");
        if (task.get("request") instanceof JsonObject request) {
            if (request.get("header") instanceof JsonObject header) {
                JsonObjectBuilder headers = JSON.createObjectBuilder();
                for (Map.Entry<String, JsonValue> field : header.entrySet()) {
                    headers.add(field.getKey(), text(header, field.getKey()));
                }
                reference.add("header", headers);
            }
            if (request.containsKey("body")) {
                reference.add("body", body(text(request, "body")));
            }
        }
        try {
            return sources.http(reference.build());
        } catch (PolicyEvaluationException e) {
            throw new CueException(e.getMessage(), e);
        }
    }

    /** CUE writes bytes as base64; the reference's body is JSON. */
    private static JsonValue body(String base64) throws CueException {
        String text;
        try {
            text = new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new CueException("processing.http.request.body is not bytes");
        }
        try (var reader = JSON.createReader(new StringReader(text))) {
            return reader.readValue();
        } catch (JsonParsingException e) {
            throw new CueException("processing.http.request.body is not JSON: " + e.getMessage());
        } catch (NumberFormatException e) {
            throw new CueException("processing.http.request.body has a number out of range: " + e.getMessage());
        }
    }

    private static String text(JsonObject object, String key) throws CueException {
        if (object.get(key) instanceof JsonString s) {
            return s.getString();
        }
        throw new CueException("processing.http " + key + " is not a string");
    }
}

package io.remold.kinitiras;

import io.remold.api.YamlJson;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.params.provider.Arguments;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;

/** Table-driven cases: a YAML file beside the test ({@code object} shared, {@code cases} each named by its source). */
final class Cases {
    private Cases() {
    }

    static JsonObject file(String name) {
        try (InputStream in = Cases.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test file " + name);
            }
            return (JsonObject) YamlJson.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), name).get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Each case as (its name, the case). */
    static Stream<Arguments> of(String name) {
        return file(name).getJsonArray("cases").getValuesAs(JsonObject.class).stream()
                .map(c -> Arguments.of(c.getString("case"), c));
    }

    static String text(JsonObject object, String key) {
        return object.get(key) instanceof JsonString s ? s.getString() : null;
    }

    static JsonObject yaml(String text) {
        return (JsonObject) YamlJson.parse(text, "test").get(0);
    }

    static boolean isTrue(JsonObject object, String key) {
        return object.get(key) == JsonValue.TRUE;
    }
}

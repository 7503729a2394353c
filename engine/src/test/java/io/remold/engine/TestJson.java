package io.remold.engine;

import jakarta.json.JsonValue;

import java.io.StringReader;

/** Test helper: JSON text (single quotes allowed for readability) to a value. */
final class TestJson {
    private TestJson() {
    }

    static JsonValue json(String text) {
        try (var reader = Json.PROVIDER.createReader(new StringReader(text.replace('\'', '"')))) {
            return reader.readValue();
        }
    }
}

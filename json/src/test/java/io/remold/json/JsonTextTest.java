package io.remold.json;

import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/** The two ways a tree is written as text: as Parsson writes it, and as Go's encoding/json does. */
class JsonTextTest {
    private static final JsonProvider PARSSON = JsonProvider.provider();
    /** Every character either writer escapes differently, in a key, a nested value and a list. */
    private static final String DOCUMENT = "{\"k<\\b\":{\"s\":\"a\\\"b\\\\c\\n\\r\\t\\f\\u0001 <x> & \\u2028\\u2029 é\"},"
            + "\"l\":[1.50,true,null,\"&\"]}";

    private static JsonValue parsson() {
        try (var reader = PARSSON.createReader(new StringReader(DOCUMENT))) {
            return reader.readValue();
        }
    }

    @Test
    void compactTreesPrintCharacterForCharacterAsParsson() {
        JsonValue compact = JsonTree.parse(DOCUMENT.getBytes(StandardCharsets.UTF_8));
        assertThat(compact.toString(), equalTo(parsson().toString()));
        assertThat(JsonTree.quote("<\b\f\u0001\u2028>", new StringBuilder()).toString(),
                equalTo("\"<\\b\\f\\u0001\u2028>\""));
    }

    @Test
    void goTextEscapesHtmlCharactersAndLineSeparators() {
        String expected = "{\"k\\u003c\\u0008\":{\"s\":\"a\\\"b\\\\c\\n\\r\\t\\u000c\\u0001 \\u003cx\\u003e \\u0026 "
                + "\\u2028\\u2029 é\"},\"l\":[1.50,true,null,\"\\u0026\"]}";
        assertThat(JsonTree.goText(parsson()), equalTo(expected));
        assertThat(JsonTree.goText(JsonTree.parse(DOCUMENT.getBytes(StandardCharsets.UTF_8))), equalTo(expected));
    }
}

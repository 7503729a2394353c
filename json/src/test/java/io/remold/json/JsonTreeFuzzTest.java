package io.remold.json;

import com.code_intelligence.jazzer.junit.FuzzTest;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParsingException;

import java.io.ByteArrayInputStream;
import java.util.Set;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * Fuzzes the request-body parser. The only documented failure is {@link JsonParsingException}; and whatever both
 * JsonTree and Parsson accept must be the same tree, printed the same way (JsonTree's contract). Seeds: AdmissionReviews
 * and objects from the conformance corpora; runs them only, unless JAZZER_FUZZ is set (scripts/fuzz.sh).
 */
class JsonTreeFuzzTest {
    private static final JsonProvider PARSSON = JsonProvider.provider();

    @FuzzTest
    void parse(byte[] input) {
        JsonValue tree;
        try {
            tree = JsonTree.parse(input);
        } catch (JsonParsingException e) {
            return;
        }
        JsonValue parsson;
        try (var reader = PARSSON.createReader(new ByteArrayInputStream(input))) {
            parsson = reader.readValue();
        } catch (RuntimeException e) {
            return; // no oracle for what Parsson refuses
        }
        assertThat(tree, equalTo(parsson));
        assertThat(tree.toString(), equalTo(parsson.toString()));
        assertThat(tree.hashCode(), equalTo(parsson.hashCode()));
        // Deferred members are checked at parse time and built on first read: the same tree either way.
        if (tree instanceof JsonObject object) {
            JsonValue deferred = JsonTree.parse(input, Set.copyOf(object.keySet()));
            assertThat(deferred, equalTo(parsson));
            assertThat(deferred.toString(), equalTo(parsson.toString()));
        } else if (tree instanceof JsonArray array) {
            assertThat(array.size(), equalTo(((JsonArray) parsson).size()));
        }
    }
}

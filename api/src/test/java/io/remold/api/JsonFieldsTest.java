package io.remold.api;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.io.StringReader;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

class JsonFieldsTest {
    private static final JsonObject OBJECT;

    static {
        try (var reader = JsonProvider.provider().createReader(new StringReader(
                "{\"s\":\"text\",\"n\":null,\"i\":7,\"l\":[1]}"))) {
            OBJECT = reader.readObject();
        }
    }

    /** The error a reader words its own way, here naming the field and the type found. */
    private static IllegalArgumentException mistyped(JsonValue value) {
        return new IllegalArgumentException("got " + value.getValueType());
    }

    @Test
    void aStringIsReadAndAMissingOrNullMemberIsTheReadersAbsentValue() {
        assertThat(JsonFields.string(OBJECT, "s", "", JsonFieldsTest::mistyped), is("text"));
        assertThat(JsonFields.string(OBJECT, "missing", "", JsonFieldsTest::mistyped), is(""));
        assertThat(JsonFields.string(OBJECT, "n", null, JsonFieldsTest::mistyped), nullValue());
        assertThat(JsonFields.member(OBJECT, "l", JsonArray.class, null, JsonFieldsTest::mistyped),
                sameInstance(OBJECT.get("l")));
    }

    @Test
    void anotherTypeThrowsTheReadersError() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> JsonFields.string(OBJECT, "i", "", JsonFieldsTest::mistyped));
        assertThat(e.getMessage(), is("got NUMBER"));
        e = assertThrows(IllegalArgumentException.class,
                () -> JsonFields.member(OBJECT, "s", JsonObject.class, null, JsonFieldsTest::mistyped));
        assertThat(e.getMessage(), is("got STRING"));
    }
}

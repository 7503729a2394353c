package io.remold.json;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParsingException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The parser against Parsson: the same values, the same text, the same hash codes; and errors with positions. */
class JsonTreeParseTest {
    private static final JsonProvider PARSSON = JsonProvider.provider();

    private static JsonValue parsson(String text) {
        try (var reader = PARSSON.createReader(new StringReader(text))) {
            return reader.readValue();
        }
    }

    private static JsonValue tree(String text) {
        return JsonTree.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    private static void assertSameAsParsson(String text) {
        JsonValue expected = parsson(text);
        JsonValue actual = tree(text);
        assertThat(text, actual, equalTo(expected));
        assertThat(text, expected, equalTo(actual));
        assertThat(text, actual.toString(), equalTo(expected.toString()));
        assertThat(text, actual.hashCode(), equalTo(expected.hashCode()));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{}", "[]", "0", "-0", "1", "-1", "255", "256", "2147483647", "2147483648", "-2147483649",
            "999999999999999999", "1000000000000000000", "123456789012345678901234567890", "1.5", "-0.0", "1e5",
            "1E-7", "2.50e+10", "12.000", "true", "false", "null", "\"\"", "\"plain\"",
            "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0041 \\u00e9 \\ud83d\\ude00\"", "\"caf\u00e9 \u4e2d \ud83d\ude00\"",
            "\"\\u0001\\u001f\\u007f\"", " \t\r\n{ \"a\" : [ 1 , { } , [ ] ] } \n",
            "{\"a\":1,\"b\":{\"c\":[true,false,null]},\"d\":\"x\"}",
            "{\"dup\":1,\"other\":2,\"dup\":3}",
            "{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,\"k1\":10}",
            "{\"a\":0,\"b\":1,\"c\":2,\"d\":3,\"e\":4,\"f\":5,\"g\":6,\"h\":7,\"i\":8,\"j\":9,\"k\":10,\"l\":11,"
                    + "\"m\":12,\"b\":13,\"n\":14,\"m\":15}",
            "{\"caf\u00e9\":1,\"a\\u0062c\":2,\"a-very-long-key-that-is-not-cached-because-of-its-length\":3}",
            "[[[[[[[[[[1]]]]]]]]]]",
    })
    void readsWhatParssonReads(String text) {
        assertSameAsParsson(text);
    }

    @Test
    void largeObjectsAreIndexed() {
        var sb = new StringBuilder("{");
        for (int i = 0; i < 500; i++) {
            sb.append(i == 0 ? "" : ",").append("\"key").append(i).append("\":").append(i);
        }
        String text = sb.append('}').toString();
        assertSameAsParsson(text);
        var object = (JsonObject) tree(text);
        for (int i = 0; i < 500; i++) {
            assertThat(object.getInt("key" + i), equalTo(i));
        }
        assertThat(object.get("key500"), equalTo(null));
        assertThat(object.containsKey("key499"), equalTo(true));
    }

    @Test
    void readsTheKubeModCorpusLikeParsson() throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.walk(Path.of("../../shared/conformance/kubemod"))) {
            files = list.filter(p -> p.toString().endsWith(".json")).toList();
        }
        assertThat(files.size() > 40, equalTo(true));
        for (Path file : files) {
            assertSameAsParsson(Files.readString(file));
        }
    }

    /** Random documents with every kind of value, nested, with escapes and non-ASCII text, against Parsson. */
    @Test
    void randomDocumentsReadLikeParsson() {
        var random = new Random(20261123);
        for (int i = 0; i < 2000; i++) {
            var sb = new StringBuilder();
            randomValue(random, sb, 0);
            assertSameAsParsson(sb.toString());
        }
    }

    private static void randomValue(Random random, StringBuilder sb, int depth) {
        switch (random.nextInt(depth > 4 ? 4 : 6)) {
            case 0 -> sb.append(random.nextBoolean() ? "true" : random.nextBoolean() ? "false" : "null");
            case 1 -> sb.append(switch (random.nextInt(4)) {
                case 0 -> Integer.toString(random.nextInt(300) - 20);
                case 1 -> Long.toString(random.nextLong());
                case 2 -> random.nextInt(1000) + "." + random.nextInt(1000);
                default -> random.nextInt(9) + 1 + "e" + (random.nextInt(40) - 20);
            });
            case 2, 3 -> randomString(random, sb);
            case 4 -> {
                sb.append('[');
                int n = random.nextInt(5);
                for (int i = 0; i < n; i++) {
                    sb.append(i > 0 ? "," : "").append(random.nextBoolean() ? " " : "");
                    randomValue(random, sb, depth + 1);
                }
                sb.append(']');
            }
            default -> {
                sb.append('{');
                int n = random.nextInt(16);
                for (int i = 0; i < n; i++) {
                    sb.append(i > 0 ? "," : "");
                    randomString(random, sb);
                    sb.append(random.nextBoolean() ? ":" : " : ");
                    randomValue(random, sb, depth + 1);
                }
                sb.append('}');
            }
        }
    }

    private static void randomString(Random random, StringBuilder sb) {
        String[] pieces = {"a", "name", "Z9", "-", ".", "\\n", "\\\"", "\\\\", "\\u00e9", "\u00e9", "\u4e2d",
                "\ud83d\ude00", "\\ud83d\\ude00", "\\t", "\\/", " "};
        sb.append('"');
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) {
            sb.append(pieces[random.nextInt(pieces.length)]);
        }
        sb.append('"');
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("", "unexpected end of input, expected a value", 1, 1),
                Arguments.of("{", "unexpected end of input", 1, 2),
                Arguments.of("{\"a\" 1}", "unexpected character '1', expected :", 1, 6),
                Arguments.of("{\"a\":1,}", "unexpected character '}', expected a quoted key", 1, 8),
                Arguments.of("{\n  \"a\": [1, 2,, 3]\n}", "unexpected character ',', expected a value", 2, 14),
                Arguments.of("[1 2]", "unexpected character '2', expected , or ]", 1, 4),
                Arguments.of("{\"a\":1 \"b\":2}", "unexpected character '\"', expected , or }", 1, 8),
                Arguments.of("{} x", "unexpected content after the JSON value", 1, 4),
                Arguments.of("\"open", "unterminated string", 1, 6),
                Arguments.of("\"a\tb\"", "unescaped control character in a string", 1, 3),
                Arguments.of("\"\\x\"", "invalid escape \\'x'", 1, 3),
                Arguments.of("\"\\u12g4\"", "invalid \\u escape", 1, 6),
                Arguments.of("01", "unexpected content after the JSON value", 1, 2),
                Arguments.of("-", "invalid number, expected a digit", 1, 2),
                Arguments.of("1.", "invalid number, expected a digit after the decimal point", 1, 3),
                Arguments.of("1e+", "invalid number, expected a digit in the exponent", 1, 4),
                Arguments.of("1e99999999999", "number 1e99999999999 is out of range (beyond a float64)", 1, 1),
                Arguments.of("{\"name\": 1e999999999}", "number 1e999999999 is out of range (beyond a float64)", 1, 10),
                Arguments.of("[0, -1e309]", "number -1e309 is out of range (beyond a float64)", 1, 5),
                Arguments.of("0e-999999999", "number 0e-999999999 is out of range (beyond a float64)", 1, 1),
                Arguments.of("1e-400", "number 1e-400 is out of range (beyond a float64)", 1, 1),
                Arguments.of("1" + "0".repeat(TreeParser.MAX_NUMBER_CHARS), "number longer than "
                        + TreeParser.MAX_NUMBER_CHARS + " characters", 1, 1),
                Arguments.of("tru", "unexpected end of input in true", 1, 4),
                Arguments.of("nul!", "unexpected character '!' in null", 1, 4),
                Arguments.of("{\"caf\u00e9\": x}", "unexpected character 'x', expected a value", 1, 10),
                Arguments.of("[" + "[".repeat(TreeParser.MAX_DEPTH) + "]".repeat(TreeParser.MAX_DEPTH + 1),
                        "nesting deeper than 1000 levels", 1, 1001));
    }

    @ParameterizedTest
    @MethodSource("malformed")
    void malformedInputNamesTheErrorAndItsPosition(String text, String message, int line, int column) {
        var e = assertThrows(JsonParsingException.class, () -> tree(text));
        assertThat(e.getMessage(), equalTo(message + " at line " + line + ", column " + column));
        assertThat(e.getLocation().getLineNumber(), equalTo((long) line));
        assertThat(e.getLocation().getColumnNumber(), equalTo((long) column));
    }

    @Test
    void numbersAFloat64HoldsAreRead() {
        for (String text : List.of("1.7976931348623157e308", "-1.7976931348623157E+308", "4.9e-324", "0e-324",
                "0.0", "-0.5", "123456789012345678901234567890", "1e308")) {
            assertSameAsParsson(text);
        }
    }

    @Test
    void deferredMembersAreReadOnFirstUseAndEqualAnEagerRead() {
        String text = "{\"request\":{\"uid\":\"1\",\"oldObject\":{\"metadata\":{\"name\":\"x\"},\"n\":[1,2]},"
                + "\"other\":{\"oldObject\":{\"a\":1}}},\"oldObject\":{\"b\":2}}";
        var lazy = (JsonObject) JsonTree.parse(text.getBytes(StandardCharsets.UTF_8), Set.of("oldObject"));
        JsonObject request = lazy.getJsonObject("request");
        assertThat(request.get("oldObject"), instanceOf(DeferredObject.class));
        assertThat(request.getJsonObject("other").get("oldObject"), not(instanceOf(DeferredObject.class)));
        assertThat(lazy.get("oldObject"), not(instanceOf(DeferredObject.class)));
        assertThat(request.getJsonObject("oldObject").getJsonObject("metadata").getString("name"), equalTo("x"));
        assertThat(lazy, equalTo(parsson(text)));
        assertThat(lazy.toString(), equalTo(parsson(text).toString()));
        JsonObject edited = JsonTree.with(request.getJsonObject("oldObject"), "n", JsonValue.NULL);
        assertThat(edited.toString(), equalTo("{\"metadata\":{\"name\":\"x\"},\"n\":null}"));
    }

    @Test
    void deferredMembersAreStillChecked() {
        var errors = new ArrayList<String>();
        for (String old : List.of("{\"a\":}", "{\"a\":1e99999999999}", "[1,]", "\"\\q\"")) {
            String text = "{\"request\":{\"oldObject\":" + old + "}}";
            errors.add(assertThrows(JsonParsingException.class,
                    () -> JsonTree.parse(text.getBytes(StandardCharsets.UTF_8), Set.of("oldObject"))).getMessage());
        }
        assertThat(errors, equalTo(List.of(
                "unexpected character '}', expected a value at line 1, column 30",
                "number 1e99999999999 is out of range (beyond a float64) at line 1, column 30",
                "unexpected character ']', expected a value at line 1, column 28",
                "invalid escape \\'q' at line 1, column 27")));
        var nonObject = (JsonObject) JsonTree.parse("{\"request\":{\"oldObject\":[1, \"a\"]}}"
                .getBytes(StandardCharsets.UTF_8), Set.of("oldObject"));
        assertThat(nonObject.getJsonObject("request").get("oldObject").toString(), equalTo("[1,\"a\"]"));
    }
}

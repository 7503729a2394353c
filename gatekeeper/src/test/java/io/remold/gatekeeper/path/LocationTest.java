package io.remold.gatekeeper.path;

import io.remold.gatekeeper.ConformanceCorpus;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Gatekeeper's location parser ({@code path_parse}) and the formatter's round trip. */
class LocationTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    @Test
    void pathParse() {
        ConformanceCorpus.run("path_parse", KNOWN_DEVIATIONS, LocationTest::check);
    }

    private static String check(JsonObject c) {
        String location = c.getString("location");
        JsonObject expect = c.getJsonObject("expect");
        List<PathNode> nodes;
        try {
            nodes = Location.parse(location);
        } catch (LocationSyntaxException e) {
            String wanted = expect.getString("error_contains", null);
            return wanted != null && e.reason().contains(wanted) ? null : "unexpected error: " + e.getMessage();
        }
        if (!expect.containsKey("nodes")) {
            return "expected an error, got " + nodes;
        }
        var wanted = new ArrayList<PathNode>();
        for (JsonValue v : expect.getJsonArray("nodes")) {
            wanted.add(node((JsonObject) v));
        }
        if (!wanted.equals(nodes)) {
            return "expected " + wanted + ", got " + nodes;
        }
        String text = Location.format(nodes);
        List<PathNode> again = Location.parse(text);
        return again.equals(nodes) ? null : "format " + text + " parses back to " + again;
    }

    private static PathNode node(JsonObject json) {
        if (json.containsKey("object")) {
            return new PathNode.Field(json.getString("object"));
        }
        JsonObject list = json.getJsonObject("list");
        Object keyValue = switch (list.get("keyValue")) {
            case JsonString s -> s.getString();
            case JsonNumber n -> n.longValueExact();
            default -> null;
        };
        return new PathNode.KeyedList(list.getString("keyField"), keyValue, list.getBoolean("glob"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            spec.containers[name: foo].image | spec.containers[name: foo].image
            'a/b'.c                          | "a/b".c
            "1abc"[k: "0"]                   | "1abc"[k: "0"]
            x["my key": "it's"]              | x["my key": "it's"]
            x[n: 007]                        | x[n: 7]
            x["é": *]                        | x["é": *]
            "back\\\\slash"                  | "back\\\\slash"
            """)
    void formatsToTextThatParsesBack(String location, String formatted) {
        List<PathNode> nodes = Location.parse(location);
        assertEquals(formatted, Location.format(nodes));
        assertEquals(nodes, Location.parse(Location.format(nodes)));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            spec.                | 4  | trailing separators are forbidden
            spec..x              | 5  | unexpected token
            spec[name: 'x        | 11 | unexpected token
            spec/x               | 4  | unexpected token
            spec[name: 1x]       | 12 | unexpected token
            spec[k: 99999999999999999999] | 8 | invalid integer
            """)
    void reportsThePositionOfTheFirstFault(String location, int position, String reason) {
        var e = assertThrows(LocationSyntaxException.class, () -> Location.parse(location));
        assertEquals(position, e.position(), e.getMessage());
        assertTrue(e.reason().startsWith(reason), e.getMessage());
    }
}

package io.remold.cli;

import jakarta.json.JsonArray;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonGenerator;

import java.io.StringWriter;
import java.util.Map;

/** JSON as the commands print it: pretty documents, and patches one operation a line. */
public final class JsonText {
    private static final JsonProvider JSON = JsonProvider.provider();

    private JsonText() {
    }

    /** A JSON Patch with one compact operation per line: short, and still valid JSON. */
    public static String patchLines(JsonArray patch) {
        if (patch.isEmpty()) {
            return "[]" + System.lineSeparator();
        }
        var text = new StringBuilder("[");
        for (int i = 0; i < patch.size(); i++) {
            text.append(i == 0 ? "" : ",").append(System.lineSeparator()).append("  ").append(patch.get(i));
        }
        return text.append(System.lineSeparator()).append(']').append(System.lineSeparator()).toString();
    }

    /** A value pretty-printed, ending with a line separator. */
    public static String pretty(JsonValue value) {
        var text = new StringWriter();
        try (var writer = JSON.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true)).createWriter(text)) {
            writer.write(value);
        }
        return text.toString().strip() + System.lineSeparator();
    }
}

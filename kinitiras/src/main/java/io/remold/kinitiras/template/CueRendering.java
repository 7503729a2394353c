package io.remold.kinitiras.template;

import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonValue;

import java.util.List;
import java.util.StringJoiner;

/**
 * A template's {@code renderedCue}: CUE that kinitiras's engine runs with {@code data: {object, oldObject,
 * extraParams}} (the extraParams keyed {@code otherObject}, {@code http}, {@code otherObject_d}, {@code http_d} as
 * kinitiras builds them) and that gives what the native template gives. An override's output is {@code patches}, a
 * validation's {@code validate: {valid, reason}}. Remold writes its own CUE; only the contract is kinitiras's.
 */
final class CueRendering {
    private static final JsonProvider JSON = JsonProvider.provider();

    private CueRendering() {
    }

    /**
     * An override's CUE: {@code bindings} (lines binding the referenced data), then {@code steps}, each a patch, a
     * list of patches (nested lists allowed) or an empty struct (an operation with no op and no path, as kinitiras's
     * own templates yield in places), flattened into {@code patches}.
     */
    static String override(List<String> imports, String bindings, List<String> steps) {
        StringBuilder cue = new StringBuilder();
        importLine(cue, "list");
        imports.forEach(p -> importLine(cue, p));
        cue.append("data: _\nobject: data.object\noldObject: data.oldObject\n").append(bindings);
        StringJoiner list = new StringJoiner(",\n", "[\n", "\n]");
        list.setEmptyValue("[]");
        steps.forEach(list::add);
        return cue.append("steps: ").append(list).append("\npatches: list.FlattenN(steps, -1)\n").toString();
    }

    /** A validation's CUE: {@code bindings}, then {@code validate} holding {@code body} ({@code usesList}: imported). */
    static String validate(boolean usesList, String bindings, String body) {
        StringBuilder cue = new StringBuilder();
        if (usesList) {
            importLine(cue, "list");
        }
        return cue.append("data: _\nobject: data.object\noldObject: data.oldObject\n").append(bindings)
                .append("validate: {\n").append(body).append("}\n").toString();
    }

    private static void importLine(StringBuilder cue, String name) {
        cue.append("import \"").append(name).append("\"\n");
    }

    /** The line binding a fetched reference's data under its parameter key. */
    static String binding(String key) {
        return key + ": data.extraParams." + key + "\n";
    }

    /** A CUE string literal of {@code text} (JSON's escapes are CUE's). */
    static String string(String text) {
        return JSON.createValue(text).toString();
    }

    /** A JSON value as the CUE literal of the same value. */
    static String literal(JsonValue value) {
        return value.toString();
    }

    /** One patch operation; {@code value} is CUE text, or null for none. */
    static String patch(String op, String path, String value) {
        return "{op: " + string(op) + ", path: " + string(path) + (value == null ? "" : ", value: " + value) + "}";
    }

    /** {@code if <condition> {<body>}}: in a list an element, in a struct fields, there when the condition holds. */
    static String when(String condition, String body) {
        return "if " + condition + " {" + body + "}";
    }

    /** A CUE list of the elements. */
    static String list(List<String> elements) {
        return "[" + String.join(", ", elements) + "]";
    }
}

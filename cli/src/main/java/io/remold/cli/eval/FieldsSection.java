package io.remold.cli.eval;

import io.remold.engine.FieldChange;
import jakarta.json.JsonArray;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;

import java.io.PrintStream;
import java.util.List;

/**
 * {@code --explain}'s field provenance, after the rules' trace on standard error: each changed field of the patch,
 * the rules that wrote it in the order they ran (the last one's value stands) and why each applied. With
 * {@code --output json}, one JSON object {@code {"fieldsChanged": [{"path", "op", "family", "rule", "generation",
 * "reasons"}, ...]}}, one item per rule and field in the same order. {@code remold why} prints one field's so.
 */
public final class FieldsSection {
    /** Most fields explained: a patch of a huge list stays a readable explanation. */
    public static final int MAX_FIELDS = 1000;
    private static final JsonProvider JSON = JsonProvider.provider();

    private FieldsSection() {
    }

    /** Prints {@code fields}, the first of a patch of {@code total} operations; nothing when it is empty. */
    public static void print(List<FieldChange> fields, int total, boolean json, PrintStream err) {
        if (json) {
            var out = JSON.createObjectBuilder().add("fieldsChanged", json(fields));
            if (total > MAX_FIELDS) {
                out.add("fieldsLeftOut", total - MAX_FIELDS);
            }
            err.println(out.build());
            return;
        }
        if (fields.isEmpty()) {
            return;
        }
        err.println("Fields changed (each by the rules that wrote it, in order; the last one's value stands):");
        for (int i = 0; i < fields.size(); i++) {
            FieldChange field = fields.get(i);
            if (i == 0 || !fields.get(i - 1).path().equals(field.path())) {
                err.println("  " + field.op() + " " + field.path());
            }
            writer(fields, i, "    ", err);
        }
        if (total > MAX_FIELDS) {
            err.println("  ... and " + (total - MAX_FIELDS) + " more fields");
        }
    }

    /**
     * The rule of {@code fields.get(i)} at {@code indent} ({@code ModRule shop/label (generation 3)}, {@code no rule}
     * for a field no rule's operations name; {@code (then overwritten)} when the next one writes the same field), then
     * its reasons below it.
     */
    public static void writer(List<FieldChange> fields, int i, String indent, PrintStream out) {
        FieldChange field = fields.get(i);
        boolean last = i + 1 == fields.size() || !fields.get(i + 1).path().equals(field.path());
        out.println(indent + (field.rule().isEmpty() ? "no rule" : field.family() + " " + field.rule()
                + (field.generation() > 0 ? " (generation " + field.generation() + ")" : ""))
                + (last ? "" : " (then overwritten)"));
        field.reasons().forEach(reason -> out.println(indent + "  " + reason));
    }

    /** The fields as {@code --output json} prints them: one object per rule and field. */
    public static JsonArray json(List<FieldChange> fields) {
        var array = JSON.createArrayBuilder();
        for (FieldChange field : fields) {
            JsonObjectBuilder item = JSON.createObjectBuilder().add("path", field.path()).add("op", field.op())
                    .add("family", field.family()).add("rule", field.rule());
            if (field.generation() > 0) {
                item.add("generation", field.generation());
            }
            array.add(item.add("reasons", JSON.createArrayBuilder(field.reasons())));
        }
        return array.build();
    }
}

package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyInput;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code annotations} and {@code labels}: the map is first created when the object has none; then the key ({@code
 * path}) is removed if present, or set to the value (printed as Go prints it, so every constant becomes a string;
 * a {@code stringMap} sets each of its keys instead), or to what {@code valueRef} finds, if it finds anything.
 */
record MetadataRule(String map, String op, String key, Source source) implements TemplateRule {
    sealed interface Source permits Printed, Entries, Referenced, Nothing {
    }

    record Printed(String text) implements Source {
    }

    record Entries(Map<String, String> entries) implements Source {
        Entries {
            entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
        }
    }

    record Referenced(Reference.At reference) implements Source {
    }

    record Nothing() implements Source {
    }

    static MetadataRule parse(String map, String op, JsonObject template, String field) {
        String key = Fields.cueStringContent(CuePath.cueText(Fields.text(template, "path", field)),
                Fields.at(field, "path"));
        JsonObject value = Fields.object(template, "value", field);
        JsonObject valueRef = Fields.object(template, "valueRef", field);
        Source source;
        if (op.equals("remove")) {
            source = new Nothing();
        } else if (value != null) {
            Constant constant = Constant.parse(value, Fields.at(field, "value"));
            if (constant instanceof Constant.TextMap m) {
                for (Map.Entry<String, String> e : m.entries().entrySet()) {
                    String at = Fields.at(Fields.at(Fields.at(field, "value"), "stringMap"), e.getKey());
                    Fields.cueStringContent(e.getKey(), at);
                    Fields.cueStringContent(e.getValue(), at);
                }
                source = new Entries(m.entries());
            } else {
                source = new Printed(Fields.cueStringContent(constant.goText(), Fields.at(field, "value")));
            }
        } else if (valueRef != null) {
            source = new Referenced(Reference.At.parse(valueRef, Fields.at(field, "valueRef")));
        } else {
            source = new Nothing();
        }
        return new MetadataRule(map, op, key, source);
    }

    /** Its operations on the map's keys, without a value where it writes what its valueRef finds. */
    OverrideTemplate.MapEdit edit() {
        String base = "/metadata/" + map;
        if (op.equals("remove")) {
            return new OverrideTemplate.MapEdit(map, List.of(Patch.of("remove", base + "/" + key)), false);
        }
        return switch (source) {
            case Printed p -> new OverrideTemplate.MapEdit(map, List.of(Patch.of(op, base + "/" + key, p.text())),
                    false);
            case Entries e -> new OverrideTemplate.MapEdit(map, e.entries().entrySet().stream()
                    .map(entry -> Patch.of(op, base + "/" + entry.getKey(), entry.getValue())).toList(), false);
            case Referenced r -> new OverrideTemplate.MapEdit(map, List.of(Patch.of(op, base + "/" + key)), true);
            case Nothing n -> new OverrideTemplate.MapEdit(map, List.of(), false);
        };
    }

    @Override
    public List<JsonObject> patches(PolicyInput input, JsonValue fetched) {
        List<JsonObject> patches = new ArrayList<>();
        String base = "/metadata/" + map;
        Optional<JsonValue> current = Patch.at(input.object(), "metadata", map);
        if (current.isEmpty()) {
            patches.add(Patch.of("replace", base, JsonValue.EMPTY_JSON_OBJECT));
        }
        if (op.equals("remove")) {
            if (current.flatMap(m -> Patch.at(m, key)).isPresent()) {
                patches.add(Patch.of("remove", base + "/" + key));
            }
            return patches;
        }
        switch (source) {
            case Printed p -> patches.add(Patch.of(op, base + "/" + key, p.text()));
            case Entries e -> e.entries().forEach((k, v) -> patches.add(Patch.of(op, base + "/" + k, v)));
            case Referenced r -> r.reference().find(input, fetched)
                    .ifPresent(v -> patches.add(Patch.of(op, base + "/" + key, v)));
            case Nothing n -> {
            }
        }
        return patches;
    }

    @Override
    public List<String> cueSteps() {
        String base = "/metadata/" + map;
        String current = "object.metadata." + map;
        List<String> steps = new ArrayList<>();
        steps.add(CueRendering.when(current + " == _|_", CueRendering.patch("replace", base, "{}")));
        if (op.equals("remove")) {
            steps.add(CueRendering.when(current + "." + CueRendering.string(key) + " != _|_",
                    CueRendering.patch("remove", base + "/" + key, null)));
            return steps;
        }
        switch (source) {
            case Printed p -> steps.add(CueRendering.patch(op, base + "/" + key, CueRendering.string(p.text())));
            case Entries e -> e.entries().forEach((k, v) -> steps.add(CueRendering.patch(op, base + "/" + k,
                    CueRendering.string(v))));
            case Referenced r -> {
                String value = r.reference().cue(false);
                steps.add(CueRendering.when(value + " != _|_", CueRendering.patch(op, base + "/" + key, value)));
            }
            case Nothing n -> {
            }
        }
        return steps;
    }
}

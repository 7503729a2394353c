package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BiFunction;

/**
 * {@code resources}: on the first container (of a Pod, or of a workload's pod template), after creating {@code
 * resources}, {@code requests} and {@code limits} where missing, each named request then limit is removed if present
 * ({@code remove}) or replaced ({@code add} too) by its quantity's whole value as a string ({@code 500m} gives
 * {@code "1"}). Without {@code resources} the template writes only the missing maps.
 */
record ResourcesRule(boolean remove, SortedMap<String, Long> requests, SortedMap<String, Long> limits,
                     boolean present) implements TemplateRule {

    ResourcesRule {
        requests = Collections.unmodifiableSortedMap(new TreeMap<>(requests));
        limits = Collections.unmodifiableSortedMap(new TreeMap<>(limits));
    }

    static ResourcesRule parse(String op, JsonObject template, String field) {
        JsonObject resources = Fields.object(template, "resources", field);
        String at = Fields.at(field, "resources");
        JsonObject given = resources == null ? JsonValue.EMPTY_JSON_OBJECT : resources;
        return new ResourcesRule(op.equals("remove"),
                quantities(Fields.object(given, "requests", at), Fields.at(at, "requests")),
                quantities(Fields.object(given, "limits", at), Fields.at(at, "limits")),
                resources != null);
    }

    private static SortedMap<String, Long> quantities(JsonObject list, String field) {
        SortedMap<String, Long> quantities = new TreeMap<>();
        if (list == null) {
            return quantities;
        }
        if (list.size() > Fields.MAX_ITEMS) {
            throw new InvalidTemplateException(field, "more than " + Fields.MAX_ITEMS + " entries");
        }
        for (Map.Entry<String, JsonValue> e : list.entrySet()) {
            String at = Fields.at(field, e.getKey());
            Fields.cueStringContent(Fields.bounded(e.getKey(), at), at);
            quantities.put(e.getKey(), Quantity.value(e.getValue(), at));
        }
        return quantities;
    }

    /** The maps kinitiras's resources templates create first, where the first container lacks them. */
    static List<JsonObject> missingMaps(Patch.FirstContainer container) {
        List<JsonObject> patches = new ArrayList<>();
        String base = container.pointer() + "/resources";
        if (container.find("resources").isEmpty()) {
            patches.add(Patch.of("replace", base, JsonValue.EMPTY_JSON_OBJECT));
        }
        if (container.find("resources", "requests").isEmpty()) {
            patches.add(Patch.of("replace", base + "/requests", JsonValue.EMPTY_JSON_OBJECT));
        }
        if (container.find("resources", "limits").isEmpty()) {
            patches.add(Patch.of("replace", base + "/limits", JsonValue.EMPTY_JSON_OBJECT));
        }
        return patches;
    }

    @Override
    public List<JsonObject> patches(PolicyInput input, JsonValue fetched) throws PolicyEvaluationException {
        Patch.FirstContainer container = Patch.FirstContainer.of(input.object());
        List<JsonObject> patches = missingMaps(container);
        if (present) {
            write(container, "requests", requests, patches);
            write(container, "limits", limits, patches);
        }
        return patches;
    }

    @Override
    public List<String> cueSteps() {
        return byKind((container, pointer) -> {
            List<String> steps = missingMapSteps(container, pointer);
            if (present) {
                cueWrite(container, pointer, "requests", requests, steps);
                cueWrite(container, pointer, "limits", limits, steps);
            }
            return steps;
        });
    }

    private void cueWrite(String container, String pointer, String list, SortedMap<String, Long> quantities,
                          List<String> steps) {
        String base = pointer + "/resources/" + list + "/";
        quantities.forEach((name, value) -> steps.add(remove
                ? CueRendering.when(container + ".resources." + list + "." + CueRendering.string(name) + " != _|_",
                CueRendering.patch("remove", base + name, null))
                : CueRendering.patch("replace", base + name, CueRendering.string(Long.toString(value)))));
    }

    /**
     * The steps for the first container: those {@code steps} gives for a Pod's ({@code spec.containers[0]}) when
     * the object's kind is Pod, for a pod template's otherwise. Given the container's CUE and its JSON pointer.
     */
    static List<String> byKind(BiFunction<String, String, List<String>> steps) {
        return List.of(
                CueRendering.when("object.kind == \"Pod\"", CueRendering.list(
                        steps.apply("object.spec.containers[0]", "/spec/containers/0"))),
                CueRendering.when("object.kind != \"Pod\"", CueRendering.list(
                        steps.apply("object.spec.template.spec.containers[0]", "/spec/template/spec/containers/0"))));
    }

    /** {@link #missingMaps} as CUE steps. */
    static List<String> missingMapSteps(String container, String pointer) {
        List<String> steps = new ArrayList<>();
        String at = container + ".resources";
        String base = pointer + "/resources";
        steps.add(CueRendering.when(at + " == _|_", CueRendering.patch("replace", base, "{}")));
        steps.add(CueRendering.when(at + ".requests == _|_", CueRendering.patch("replace", base + "/requests", "{}")));
        steps.add(CueRendering.when(at + ".limits == _|_", CueRendering.patch("replace", base + "/limits", "{}")));
        return steps;
    }

    private void write(Patch.FirstContainer container, String list, SortedMap<String, Long> quantities,
                       List<JsonObject> patches) {
        String base = container.pointer() + "/resources/" + list + "/";
        quantities.forEach((name, value) -> {
            if (!remove) {
                patches.add(Patch.of("replace", base + name, Long.toString(value)));
            } else if (container.find("resources", list, name).isPresent()) {
                patches.add(Patch.of("remove", base + name));
            }
        });
    }
}

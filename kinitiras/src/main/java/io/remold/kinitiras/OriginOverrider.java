package io.remold.kinitiras;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code origin} (newest kinitiras engine): structured overriders, each a {@code replace} of one field of a Pod or of
 * a Deployment's pod template, all computed from the object as it was before the form (as kinitiras computes them
 * before applying any). Values go as written; kinitiras re-encodes them through the Kubernetes types first, which
 * the API server does anyway when it stores the object.
 */
record OriginOverrider(List<Origin> origins) implements Overrider {
    private static final JsonProvider JSON = JsonProvider.provider();

    OriginOverrider {
        origins = List.copyOf(origins);
    }

    @Override
    public List<JsonObject> patches(PolicyInput input) throws PolicyEvaluationException {
        if (!(input.object() instanceof JsonObject object)) {
            return List.of();
        }
        var patches = new ArrayList<JsonObject>(origins.size());
        for (Origin origin : origins) {
            patches.add(origin.patch(object));
        }
        return patches;
    }

    /** One structured overrider: the replace operation it makes for an object. */
    sealed interface Origin permits MapOrigin, PodSpecValue, TolerationsOrigin, ResourceOversell {
        JsonObject patch(JsonObject object) throws PolicyEvaluationException;
    }

    /** The string maps: {@code annotations} and {@code labels} of any object, a pod spec's {@code nodeSelector}. */
    enum MapField { ANNOTATIONS, LABELS, NODE_SELECTOR }

    /**
     * Merges {@code value} into the map ({@code add}, {@code replace}), deletes its keys ({@code remove}), or sets it
     * whole ({@code replace: true}); with no operation the map is written back as it is (null when absent).
     */
    record MapOrigin(MapField field, JsonValue value, boolean replace, String operation) implements Origin {
        @Override
        public JsonObject patch(JsonObject object) throws PolicyEvaluationException {
            String path;
            Map<String, JsonValue> current;
            if (field == MapField.NODE_SELECTOR) {
                path = podSpec(object) + "nodeSelector";
                current = stringMap(object, path, true);
            } else {
                path = field == MapField.ANNOTATIONS ? "/metadata/annotations" : "/metadata/labels";
                current = stringMap(object, path, false);
            }
            if (replace) {
                return replaceOp(path, value);
            }
            Map<String, JsonValue> written = value instanceof JsonObject o ? o : Map.of();
            JsonValue result = switch (operation) {
                case "add", "replace" -> {
                    if (current == null) {
                        yield value;
                    }
                    current.putAll(written);
                    yield JSON.createObjectBuilder(current).build();
                }
                case "remove" -> {
                    if (current == null) {
                        yield JsonValue.NULL;
                    }
                    written.keySet().forEach(current::remove);
                    yield JSON.createObjectBuilder(current).build();
                }
                default -> current == null ? JsonValue.NULL : JSON.createObjectBuilder(current).build();
            };
            return replaceOp(path, result);
        }
    }

    /**
     * A pod spec field set whole ({@code hostNetwork}, {@code schedulerName}, {@code affinity}, {@code
     * topologySpreadConstraints}, a container's {@code resources}): only {@code replace} (or no operation).
     */
    record PodSpecValue(String member, JsonValue value, String operation) implements Origin {
        @Override
        public JsonObject patch(JsonObject object) throws PolicyEvaluationException {
            if (operation.equals("add") || operation.equals("remove")) {
                throw new PolicyEvaluationException("unsupported operator type error");
            }
            return replaceOp(podSpec(object) + member, value);
        }
    }

    /**
     * {@code tolerations}: the written ones first, then the current ones none of them equals (by key, operator, value
     * and effect); {@code remove} keeps the current ones none equals; {@code replace: true} or an empty list sets them.
     */
    record TolerationsOrigin(JsonValue value, boolean replace, String operation) implements Origin {
        @Override
        public JsonObject patch(JsonObject object) throws PolicyEvaluationException {
            String path = podSpec(object) + "tolerations";
            List<JsonObject> current = tolerations(object, path);
            boolean adds = operation.equals("add") || operation.equals("replace");
            if (replace || adds && current.isEmpty()) {
                return replaceOp(path, value);
            }
            if (operation.equals("remove") && current.isEmpty()) {
                return replaceOp(path, JsonValue.NULL);
            }
            List<JsonValue> written = value instanceof JsonArray a ? a : List.of();
            Set<String> writtenKeys = new LinkedHashSet<>();
            written.forEach(t -> writtenKeys.add(identity(t)));
            var result = new ArrayList<JsonValue>();
            if (adds) {
                result.addAll(written);
            }
            if (adds || operation.equals("remove")) {
                current.stream().filter(t -> !writtenKeys.contains(identity(t))).forEach(result::add);
            }
            // kinitiras writes null for an empty result and for an unknown operation
            return replaceOp(path, result.isEmpty() ? JsonValue.NULL : JSON.createArrayBuilder(result).build());
        }

        private static String identity(JsonValue toleration) {
            JsonObject t = toleration instanceof JsonObject o ? o : JsonValue.EMPTY_JSON_OBJECT;
            return text(t, "key") + "\u0000" + text(t, "operator") + "\u0000" + text(t, "value") + "\u0000"
                    + text(t, "effect");
        }

        private static String text(JsonObject object, String key) {
            return object.get(key) instanceof JsonString s ? s.getString() : "";
        }

        private static List<JsonObject> tolerations(JsonObject object, String path) throws PolicyEvaluationException {
            JsonValue found = at(object, path);
            if (found == null || found == JsonValue.NULL) {
                return List.of();
            }
            if (!(found instanceof JsonArray list) || !list.stream().allMatch(JsonObject.class::isInstance)) {
                throw new PolicyEvaluationException("get " + dotted(path) + " error: not a list of tolerations");
            }
            return list.getValuesAs(JsonObject.class);
        }
    }

    /**
     * {@code resourceOversell}: the container's requests and limits of cpu (in milli-units), memory, storage and
     * ephemeral-storage (in units) multiplied by their factor, rounded down, the others as they are; a quantity the
     * container does not set, or sets to zero, stays as it is. {@code factors}: {@code requests} and {@code limits}.
     */
    record ResourceOversell(Map<String, Map<String, Double>> factors, int container, String operation)
            implements Origin {
        ResourceOversell {
            factors = Map.copyOf(factors);
        }

        @Override
        public JsonObject patch(JsonObject object) throws PolicyEvaluationException {
            if (operation.equals("add") || operation.equals("remove")) {
                throw new PolicyEvaluationException("unsupported operator type error");
            }
            String spec = podSpec(object);
            JsonValue found = at(object, spec + "containers");
            List<JsonValue> containers = found instanceof JsonArray a ? a : List.of();
            if (containers.isEmpty()) {
                throw new PolicyEvaluationException(spec.equals("/spec/") ? "containers not found in pod spec"
                        : "containers not found in deployment template pod spec");
            }
            if (containers.size() <= container) {
                throw new PolicyEvaluationException(
                        "containerCount cannot be greater than the number of containers in the pod");
            }
            JsonObject resources = containers.get(container) instanceof JsonObject c
                    && c.get("resources") instanceof JsonObject r ? r : JsonValue.EMPTY_JSON_OBJECT;
            var result = JSON.createObjectBuilder(resources);
            for (String list : List.of("requests", "limits")) {
                Map<String, Double> byResource = factors.getOrDefault(list, Map.of());
                if (!byResource.isEmpty() && resources.get(list) instanceof JsonObject quantities) {
                    result.add(list, oversold(quantities, byResource, dotted(spec) + "containers resources"));
                }
            }
            return replaceOp(spec + "containers/" + container + "/resources", result.build());
        }

        private static JsonObject oversold(JsonObject quantities, Map<String, Double> factors, String what)
                throws PolicyEvaluationException {
            var result = JSON.createObjectBuilder(quantities);
            for (Map.Entry<String, Double> e : factors.entrySet()) {
                if (!(quantities.get(e.getKey()) instanceof JsonString text)) {
                    continue;
                }
                var value = Quantities.parse(text.getString()).orElseThrow(() -> new PolicyEvaluationException(
                        "get " + what + " error: quantities must match the regular expression of a quantity"));
                switch (e.getKey()) {
                    case "cpu" -> {
                        long milli = Quantities.milliValue(value);
                        if (milli != 0) {
                            result.add(e.getKey(), Quantities.decimalMilli((long) (milli * e.getValue())));
                        }
                    }
                    case "memory", "storage", "ephemeral-storage" -> {
                        long units = Quantities.value(value);
                        if (units != 0) {
                            result.add(e.getKey(), Quantities.binary((long) (units * e.getValue())));
                        }
                    }
                    default -> {
                        // kinitiras oversells only these four resources
                    }
                }
            }
            return result.build();
        }
    }

    /** Where a Pod's or a Deployment's pod spec is ({@code /spec/}, {@code /spec/template/spec/}); other kinds fail. */
    static String podSpec(JsonObject object) throws PolicyEvaluationException {
        String kind = object.get("kind") instanceof JsonString s ? s.getString() : "";
        return switch (kind) {
            case "Pod" -> "/spec/";
            case "Deployment" -> "/spec/template/spec/";
            default -> throw new PolicyEvaluationException("unsupported kind type error");
        };
    }

    /**
     * A string map at a path, copied for editing, or null when absent. {@code strict}: a value of another type fails
     * (kinitiras's nodeSelector); otherwise it reads as absent (kinitiras's annotations and labels).
     */
    private static Map<String, JsonValue> stringMap(JsonObject object, String path, boolean strict)
            throws PolicyEvaluationException {
        JsonValue found = at(object, path);
        if (found == null) {
            return null;
        }
        if (found instanceof JsonObject map && map.values().stream().allMatch(JsonString.class::isInstance)) {
            return new LinkedHashMap<>(map);
        }
        if (strict) {
            throw new PolicyEvaluationException("get " + dotted(path) + " error: not a map of strings");
        }
        return null;
    }

    /** The value at a JSON pointer of plain keys, null when a step is missing or not an object. */
    private static JsonValue at(JsonObject object, String path) {
        JsonValue current = object;
        for (String step : path.substring(1).split("/")) {
            if (!(current instanceof JsonObject o)) {
                return null;
            }
            current = o.get(step);
        }
        return current;
    }

    private static String dotted(String path) {
        return path.substring(1).replace('/', '.');
    }

    private static JsonObject replaceOp(String path, JsonValue value) {
        return JSON.createObjectBuilder().add("op", "replace").add("path", path).add("value", value).build();
    }
}

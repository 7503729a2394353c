package io.remold.kinitiras.template;

import io.remold.kinitiras.GoDecoding;
import io.remold.kinitiras.PolicyEvaluationException;
import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.Optional;

/** JSON patch operations as kinitiras's CUE writes them, and the lookups its conditions make in the object. */
final class Patch {
    private static final JsonProvider JSON = JsonProvider.provider();
    private Patch() {
    }

    static JsonObject of(String op, String path) {
        return JSON.createObjectBuilder().add("op", op).add("path", path).build();
    }

    /**
     * An operation with a value as kinitiras hands it on: decoded from CUE into Go, so an empty list (at any depth)
     * becomes null, and a null value leaves the operation without one.
     */
    static JsonObject of(String op, String path, JsonValue value) {
        if (value.getValueType() == JsonValue.ValueType.NULL) {
            return of(op, path);
        }
        return JSON.createObjectBuilder().add("op", op).add("path", path).add("value", GoDecoding.decoded(value)).build();
    }

    static JsonObject of(String op, String path, String value) {
        return of(op, path, JSON.createValue(value));
    }

    /** The value at {@code labels} below {@code root}, empty where CUE gives bottom. */
    static Optional<JsonValue> at(JsonValue root, String... labels) {
        JsonValue current = root;
        for (String label : labels) {
            if (!(current instanceof JsonObject o) || !o.containsKey(label)) {
                return Optional.empty();
            }
            current = o.get(label);
        }
        return Optional.of(current);
    }

    /**
     * Where the templates for resources read and write: {@code spec.containers[0]} of a Pod, {@code
     * spec.template.spec.containers[0]} of anything else (by the object's {@code kind}, which must be set).
     */
    record FirstContainer(Optional<JsonValue> container, boolean pod, String pointer) {
        static FirstContainer of(JsonValue object) throws PolicyEvaluationException {
            Optional<JsonValue> kind = at(object, "kind");
            if (kind.isEmpty()) {
                throw new PolicyEvaluationException("incomplete value: kind is not set");
            }
            boolean pod = Cue.compare(kind.get(), Cue.Comparison.EQ, JSON.createValue("Pod"));
            Optional<JsonValue> containers = pod ? at(object, "spec", "containers")
                    : at(object, "spec", "template", "spec", "containers");
            Optional<JsonValue> first = containers.filter(c -> c instanceof JsonArray a && !a.isEmpty())
                    .map(c -> ((JsonArray) c).get(0));
            return new FirstContainer(first, pod, pod ? "/spec/containers/0" : "/spec/template/spec/containers/0");
        }

        Optional<JsonValue> find(String... labels) {
            return container.flatMap(c -> Patch.at(c, labels));
        }
    }
}

package io.remold.server.existing;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A set of field paths in the API server's {@code fieldsV1} form: {@code f:name} a field, {@code k:{...}} the list
 * element with those key values, {@code v:value} a set's element, {@code i:n} an element by position. A node is
 * {@code whole} when the set holds everything under it (an empty {@code fieldsV1} node, or a field a patch sets).
 * Mutable while built, then only read.
 */
final class FieldSet {
    private final Map<String, FieldSet> children = new LinkedHashMap<>();
    private boolean whole;

    /** A set of {@code metadata.managedFields[].fieldsV1}. */
    static FieldSet parse(JsonObject fieldsV1) {
        var set = new FieldSet();
        if (fieldsV1.isEmpty()) {
            set.whole = true;
        }
        fieldsV1.forEach((key, value) -> {
            if (!".".equals(key) && value instanceof JsonObject object) {
                set.children.put(key, parse(object));
            }
        });
        return set;
    }

    /** The child for {@code key}, made if absent (a child of a whole node changes nothing). */
    FieldSet child(String key) {
        return children.computeIfAbsent(key, k -> new FieldSet());
    }

    void setWhole() {
        whole = true;
        children.clear();
    }

    boolean isEmpty() {
        return !whole && children.isEmpty();
    }

    /** Adds everything of {@code other} to this set. */
    void add(FieldSet other) {
        if (whole) {
            return;
        }
        if (other.whole) {
            setWhole();
            return;
        }
        other.children.forEach((key, child) -> child(key).add(child));
    }

    /**
     * The first path that both sets hold (a node whole in one and present in the other, or a leaf of both), as the
     * API server names fields in conflicts ({@code .spec.containers[name="app"].image}); empty when they share none.
     */
    Optional<String> overlap(FieldSet other) {
        return overlap(other, "");
    }

    private Optional<String> overlap(FieldSet other, String path) {
        if (whole || other.whole) {
            return Optional.of(path.isEmpty() ? "." : path);
        }
        for (var entry : children.entrySet()) {
            FieldSet theirs = other.children.get(entry.getKey());
            if (theirs != null) {
                var found = entry.getValue().overlap(theirs, path + step(entry.getKey()));
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }

    /** Whether the set holds the node at {@code path} (the node itself, or a whole node above it). */
    boolean holds(Iterable<String> path) {
        FieldSet node = this;
        for (String key : path) {
            if (node.whole) {
                return true;
            }
            node = node.children.get(key);
            if (node == null) {
                return false;
            }
        }
        return true;
    }

    /** One key as a step of a field path: {@code .name}, {@code [name="app"]}, {@code [=value]}, {@code [0]}. */
    static String step(String key) {
        String rest = key.substring(2);
        return switch (key.substring(0, 2)) {
            case "f:" -> "." + rest;
            case "k:" -> {
                var keys = new StringBuilder();
                parseJson(rest).asJsonObject().forEach((name, value) ->
                        keys.append(keys.isEmpty() ? "" : ",").append(name).append('=').append(value));
                yield "[" + keys + "]";
            }
            case "v:" -> "[=" + rest + "]";
            default -> "[" + rest + "]";
        };
    }

    /** The part of {@code value} this set holds: objects keep the fields it names, lists the elements it names. */
    JsonValue extract(JsonValue value) {
        if (whole) {
            return value;
        }
        return switch (value) {
            case JsonObject object -> {
                var out = Json.createObjectBuilder();
                object.forEach((name, field) -> {
                    FieldSet child = children.get("f:" + name);
                    if (child != null) {
                        out.add(name, child.extract(field));
                    }
                });
                yield out.build();
            }
            case JsonArray array -> {
                var out = Json.createArrayBuilder();
                for (int i = 0; i < array.size(); i++) {
                    FieldSet element = element(array.get(i), i);
                    if (element != null) {
                        out.add(withKeys(element.extract(array.get(i)), array.get(i)));
                    }
                }
                yield out.build();
            }
            default -> value;
        };
    }

    /** The union of the children that name {@code element} (by its keys, value or position), or null for none. */
    private FieldSet element(JsonValue element, int index) {
        FieldSet found = null;
        for (var entry : children.entrySet()) {
            if (names(entry.getKey(), element, index)) {
                found = found == null ? new FieldSet() : found;
                found.add(entry.getValue());
            }
        }
        return found;
    }

    private static boolean names(String key, JsonValue element, int index) {
        String rest = key.substring(2);
        return switch (key.substring(0, 2)) {
            case "k:" -> element instanceof JsonObject object && parseJson(rest).asJsonObject().entrySet().stream()
                    .allMatch(k -> k.getValue().equals(object.get(k.getKey())));
            case "v:" -> parseJson(rest).equals(element);
            case "i:" -> rest.equals(Integer.toString(index));
            default -> false;
        };
    }

    /**
     * An element named by its keys keeps them (those of every {@code k:} child naming it), so that server-side apply
     * merges it with the element it names rather than adding one.
     */
    private JsonValue withKeys(JsonValue extracted, JsonValue element) {
        if (!(extracted instanceof JsonObject partial) || !(element instanceof JsonObject full)) {
            return extracted;
        }
        var out = Json.createObjectBuilder();
        children.keySet().stream().filter(key -> key.startsWith("k:") && names(key, element, -1))
                .flatMap(key -> parseJson(key.substring(2)).asJsonObject().keySet().stream()).distinct()
                .forEach(name -> out.add(name, full.get(name)));
        partial.forEach(out::add);
        return out.build();
    }

    /** The {@code k:} key of a list element with these key fields, as the API server writes it (fields sorted). */
    static String keyed(JsonObject keys) {
        var sorted = new TreeMap<String, JsonValue>(keys);
        var json = Json.createObjectBuilder();
        sorted.forEach(json::add);
        return "k:" + json.build();
    }

    private static JsonValue parseJson(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readValue();
        }
    }
}

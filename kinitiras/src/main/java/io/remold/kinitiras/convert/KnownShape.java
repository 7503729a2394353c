package io.remold.kinitiras.convert;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What is certain about every object a converted rule meets at one point of a policy: the locations (JSON pointer
 * tokens) that hold an object, and those that hold something. kinitiras's JSON patch fails where a step is missing
 * (and then refuses the request) while a ModRule creates it or does nothing, so an operation converts only where
 * what it needs is certain. Every object has an object at its root and at {@code metadata} (the API server gives every
 * object its metadata); the rest comes from what the policy selects on and what its earlier operations wrote.
 */
final class KnownShape {
    private final Set<List<String>> objects;
    private final Set<List<String>> present;

    private KnownShape(Set<List<String>> objects, Set<List<String>> present) {
        this.objects = objects;
        this.present = present;
    }

    /** The root and {@code metadata}, objects on every object the API server admits. */
    static KnownShape base() {
        var shape = new KnownShape(new HashSet<>(), new HashSet<>());
        shape.objects.add(List.of());
        shape.present.add(List.of());
        shape.holdsObject(List.of("metadata"));
        return shape;
    }

    KnownShape copy() {
        return new KnownShape(new HashSet<>(objects), new HashSet<>(present));
    }

    /** What both shapes are certain of: an object selected by one selector or another. */
    KnownShape intersect(KnownShape other) {
        var both = copy();
        both.objects.retainAll(other.objects);
        both.present.retainAll(other.present);
        return both;
    }

    /** {@code path} and every step to it hold objects. */
    void holdsObject(List<String> path) {
        for (int i = 0; i <= path.size(); i++) {
            objects.add(List.copyOf(path.subList(0, i)));
            present.add(List.copyOf(path.subList(0, i)));
        }
    }

    /** Every step to {@code path} holds an object, and {@code path} holds something. */
    void holdsValue(List<String> path) {
        holdsObject(path.subList(0, path.size() - 1));
        present.add(List.copyOf(path));
    }

    boolean isObject(List<String> path) {
        return objects.contains(path);
    }

    boolean isPresent(List<String> path) {
        return present.contains(path);
    }

    /** After {@code value} is written at {@code path}: what was known below it is replaced by the value's shape. */
    void wrote(List<String> path, JsonValue value) {
        forget(path);
        present.add(List.copyOf(path));
        if (value instanceof JsonObject object) {
            objects.add(List.copyOf(path));
            object.forEach((key, member) -> {
                var below = new ArrayList<>(path);
                below.add(key);
                wrote(below, member);
            });
        }
    }

    /** After {@code path} is removed, or changed in a way not followed: nothing is known at or below it. */
    void forget(List<String> path) {
        objects.removeIf(known -> startsWith(known, path));
        present.removeIf(known -> startsWith(known, path));
    }

    static boolean startsWith(List<String> path, List<String> prefix) {
        return path.size() >= prefix.size() && path.subList(0, prefix.size()).equals(prefix);
    }
}

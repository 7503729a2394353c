package io.remold.kinitiras.template;

import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A {@code ConstantValue}: the first of its kinds that is set, in kinitiras's order (string, integer, float,
 * boolean, stringSlice, integerSlice, floatSlice, stringMap); {@link None} when none is.
 */
sealed interface Constant {
    JsonProvider JSON = JsonProvider.provider();
    /** A CUE number literal (kinitiras writes a float, kept as the policy's text, into CUE as it is). */
    Pattern CUE_NUMBER = Pattern.compile("[+-]?(?:(?:0|[1-9][0-9]*)|(?:[0-9]+\\.[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
            + "|[0-9]+[eE][+-]?[0-9]+)");

    record Text(String value) implements Constant {
    }

    record Integer(long value) implements Constant {
    }

    /** A float, as the text of the policy (kinitiras's {@code Float64} is a string). */
    record Float(String text) implements Constant {
    }

    record Bool(boolean value) implements Constant {
    }

    record TextList(List<String> values) implements Constant {
    }

    record IntegerList(List<Long> values) implements Constant {
    }

    record FloatList(List<String> texts) implements Constant {
    }

    record TextMap(SortedMap<String, String> entries) implements Constant {
    }

    record None() implements Constant {
    }

    static Constant parse(JsonObject value, String field) {
        String text = Fields.text(value, "string", field);
        if (value.containsKey("string") && value.get("string") != JsonValue.NULL) {
            return new Text(text);
        }
        JsonValue integer = value.get("integer");
        if (integer != null && integer != JsonValue.NULL) {
            return new Integer(Fields.integer(integer, Fields.at(field, "integer"), Long.MIN_VALUE, Long.MAX_VALUE));
        }
        if (value.containsKey("float") && value.get("float") != JsonValue.NULL) {
            return new Float(Fields.text(value, "float", field));
        }
        JsonValue bool = value.get("boolean");
        if (bool != null && bool != JsonValue.NULL) {
            if (bool.getValueType() != JsonValue.ValueType.TRUE && bool.getValueType() != JsonValue.ValueType.FALSE) {
                throw new InvalidTemplateException(Fields.at(field, "boolean"), "must be a boolean");
            }
            return new Bool(bool.getValueType() == JsonValue.ValueType.TRUE);
        }
        List<String> strings = strings(value, "stringSlice", field);
        if (!strings.isEmpty()) {
            return new TextList(strings);
        }
        JsonArray integers = Fields.array(value, "integerSlice", field);
        if (!integers.isEmpty()) {
            List<Long> longs = new ArrayList<>();
            for (int i = 0; i < integers.size(); i++) {
                longs.add(Fields.integer(integers.get(i), Fields.at(Fields.at(field, "integerSlice"), i),
                        Long.MIN_VALUE, Long.MAX_VALUE));
            }
            return new IntegerList(List.copyOf(longs));
        }
        List<String> floats = strings(value, "floatSlice", field);
        if (!floats.isEmpty()) {
            return new FloatList(floats);
        }
        JsonObject map = Fields.object(value, "stringMap", field);
        if (map != null && !map.isEmpty()) {
            if (map.size() > Fields.MAX_ITEMS) {
                throw new InvalidTemplateException(Fields.at(field, "stringMap"), "more than " + Fields.MAX_ITEMS
                        + " entries");
            }
            SortedMap<String, String> entries = new TreeMap<>();
            for (Map.Entry<String, JsonValue> e : map.entrySet()) {
                entries.put(Fields.bounded(e.getKey(), Fields.at(field, "stringMap")),
                        Fields.string(e.getValue(), Fields.at(Fields.at(field, "stringMap"), e.getKey())));
            }
            return new TextMap(Collections.unmodifiableSortedMap(entries));
        }
        return new None();
    }

    private static List<String> strings(JsonObject value, String name, String field) {
        JsonArray array = Fields.array(value, name, field);
        List<String> strings = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            strings.add(Fields.string(array.get(i), Fields.at(Fields.at(field, name), i)));
        }
        return List.copyOf(strings);
    }

    /** Go's {@code %v} of the value, which kinitiras's templates print into CUE. */
    default String goText() {
        return switch (this) {
            case Text t -> t.value();
            case Integer i -> Long.toString(i.value());
            case Float f -> f.text();
            case Bool b -> Boolean.toString(b.value());
            case TextList l -> "[" + String.join(" ", l.values()) + "]";
            case IntegerList l -> l.values().stream().map(String::valueOf).collect(Collectors.joining(" ", "[", "]"));
            case FloatList l -> "[" + String.join(" ", l.texts()) + "]";
            case TextMap m -> m.entries().entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                    .collect(Collectors.joining(" ", "map[", "]"));
            case None n -> "<no value>";
        };
    }

    /** The list {@code In} and {@code NotIn} look in: the slice as JSON (floats stay strings), else empty. */
    default JsonArray slice() {
        JsonArrayBuilder list = JSON.createArrayBuilder();
        switch (this) {
            case TextList l -> l.values().forEach(list::add);
            case IntegerList l -> l.values().forEach(list::add);
            case FloatList l -> l.texts().forEach(list::add);
            default -> {
            }
        }
        return list.build();
    }

    /**
     * The operand kinitiras writes into a comparison: a string quoted, anything else as Go prints it, which must
     * read as a CUE literal of its own (a slice or map does not).
     */
    default JsonValue operand(String field) {
        return switch (this) {
            case Text t -> JSON.createValue(Fields.cueStringContent(t.value(), Fields.at(field, "string")));
            case Integer i -> JSON.createValue(i.value());
            case Float f -> {
                if (!CUE_NUMBER.matcher(f.text()).matches()) {
                    throw new InvalidTemplateException(Fields.at(field, "float"), "\"" + f.text()
                            + "\" is not a CUE number");
                }
                yield JSON.createValue(new BigDecimal(f.text()));
            }
            case Bool b -> b.value() ? JsonValue.TRUE : JsonValue.FALSE;
            default -> throw new InvalidTemplateException(field, "a comparison needs a string, integer, float or"
                    + " boolean value (kinitiras renders \"" + goText() + "\", which is not CUE)");
        };
    }
}

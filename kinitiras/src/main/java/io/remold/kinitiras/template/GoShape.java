package io.remold.kinitiras.template;

import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The shape of a Kubernetes Go type a template holds (tolerations, affinity), to give a value as kinitiras's {@code
 * marshal} writes it after Go decoded it: unknown fields dropped, {@code omitempty} fields dropped when empty, a nil
 * list without {@code omitempty} written as {@code null}, a struct held by value always written. Wrong types are
 * refused with the field.
 */
sealed interface GoShape {
    JsonProvider JSON = JsonProvider.provider();
    /** A Go string; a number only when {@code int32} (weights). */
    enum Scalar implements GoShape { STRING, INT32, INT64 }

    /** A {@code []string} or {@code map[string]string}. */
    enum Strings implements GoShape { LIST, MAP }

    record ListOf(GoShape element) implements GoShape {
    }

    /** A Go struct; {@code pointer} when it is held by a pointer (absent stays absent). */
    record Struct(List<Member> members) implements GoShape {
        public Struct {
            members = List.copyOf(members);
        }
    }

    /** {@code pointer}: a nil pointer field ({@code *int64}, {@code *Struct}) rather than a value. */
    record Member(String name, GoShape shape, boolean omitEmpty, boolean pointer) {
    }

    static Member field(String name, GoShape shape) {
        return new Member(name, shape, false, false);
    }

    static Member optional(String name, GoShape shape) {
        return new Member(name, shape, true, false);
    }

    static Member pointer(String name, GoShape shape) {
        return new Member(name, shape, true, true);
    }

    Struct LABEL_SELECTOR = new Struct(List.of(
            optional("matchLabels", Strings.MAP),
            optional("matchExpressions", new ListOf(new Struct(List.of(
                    field("key", Scalar.STRING), field("operator", Scalar.STRING),
                    optional("values", Strings.LIST)))))));
    Struct NODE_SELECTOR_TERM = new Struct(List.of(
            optional("matchExpressions", new ListOf(new Struct(List.of(
                    field("key", Scalar.STRING), field("operator", Scalar.STRING),
                    optional("values", Strings.LIST))))),
            optional("matchFields", new ListOf(new Struct(List.of(
                    field("key", Scalar.STRING), field("operator", Scalar.STRING),
                    optional("values", Strings.LIST)))))));
    Struct POD_AFFINITY_TERM = new Struct(List.of(
            pointer("labelSelector", LABEL_SELECTOR),
            optional("namespaces", Strings.LIST),
            field("topologyKey", Scalar.STRING),
            pointer("namespaceSelector", LABEL_SELECTOR)));
    Struct POD_AFFINITY = new Struct(List.of(
            optional("requiredDuringSchedulingIgnoredDuringExecution", new ListOf(POD_AFFINITY_TERM)),
            optional("preferredDuringSchedulingIgnoredDuringExecution", new ListOf(new Struct(List.of(
                    field("weight", Scalar.INT32), field("podAffinityTerm", POD_AFFINITY_TERM)))))));
    /** {@code corev1.Affinity} of k8s.io/api v0.23 (what kinitiras's engine v0.4.5 builds with). */
    Struct AFFINITY = new Struct(List.of(
            pointer("nodeAffinity", new Struct(List.of(
                    pointer("requiredDuringSchedulingIgnoredDuringExecution", new Struct(List.of(
                            field("nodeSelectorTerms", new ListOf(NODE_SELECTOR_TERM))))),
                    optional("preferredDuringSchedulingIgnoredDuringExecution", new ListOf(new Struct(List.of(
                            field("weight", Scalar.INT32), field("preference", NODE_SELECTOR_TERM)))))))),
            pointer("podAffinity", POD_AFFINITY),
            pointer("podAntiAffinity", POD_AFFINITY)));
    Struct TOLERATION = new Struct(List.of(
            optional("key", Scalar.STRING), optional("operator", Scalar.STRING), optional("value", Scalar.STRING),
            optional("effect", Scalar.STRING), pointer("tolerationSeconds", Scalar.INT64)));

    /** The value as Go writes it, or empty where Go writes nothing (an omitted field). */
    default Optional<JsonValue> marshal(JsonValue value, String field, boolean omitEmpty, boolean pointer) {
        boolean absent = value == null || value.getValueType() == JsonValue.ValueType.NULL;
        return switch (this) {
            case Scalar scalar -> {
                if (absent && pointer) {
                    yield Optional.empty();
                }
                JsonValue v = absent ? (scalar == Scalar.STRING ? JSON.createValue("") : JSON.createValue(0))
                        : scalar == Scalar.STRING ? JSON.createValue(Fields.string(value, field))
                        : JSON.createValue(Fields.integer(value, field, scalar == Scalar.INT32 ? Integer.MIN_VALUE
                        : Long.MIN_VALUE, scalar == Scalar.INT32 ? Integer.MAX_VALUE : Long.MAX_VALUE));
                boolean empty = v instanceof JsonString s ? s.getString().isEmpty() : ((JsonNumber) v).longValue() == 0;
                yield omitEmpty && !pointer && empty ? Optional.empty() : Optional.of(v);
            }
            case Strings strings -> {
                if (absent) {
                    yield omitEmpty ? Optional.empty() : Optional.of(JsonValue.NULL);
                }
                if (strings == Strings.LIST) {
                    JsonArray list = array(value, field);
                    JsonArrayBuilder out = JSON.createArrayBuilder();
                    for (int i = 0; i < list.size(); i++) {
                        out.add(Fields.string(list.get(i), Fields.at(field, i)));
                    }
                    JsonArray built = out.build();
                    yield omitEmpty && built.isEmpty() ? Optional.empty() : Optional.of(built);
                }
                if (!(value instanceof JsonObject map)) {
                    throw new InvalidTemplateException(field, "must be an object");
                }
                JsonObjectBuilder out = JSON.createObjectBuilder();
                for (Map.Entry<String, JsonValue> e : map.entrySet()) {
                    out.add(e.getKey(), Fields.string(e.getValue(), Fields.at(field, e.getKey())));
                }
                JsonObject built = out.build();
                yield omitEmpty && built.isEmpty() ? Optional.empty() : Optional.of(built);
            }
            case ListOf list -> {
                if (absent) {
                    yield omitEmpty ? Optional.empty() : Optional.of(JsonValue.NULL);
                }
                JsonArray items = array(value, field);
                JsonArrayBuilder out = JSON.createArrayBuilder();
                for (int i = 0; i < items.size(); i++) {
                    out.add(list.element().marshal(items.get(i), Fields.at(field, i), false, false)
                            .orElseThrow());
                }
                JsonArray built = out.build();
                yield omitEmpty && built.isEmpty() ? Optional.empty() : Optional.of(built);
            }
            case Struct struct -> {
                if (absent && pointer) {
                    yield Optional.empty();
                }
                if (!absent && !(value instanceof JsonObject)) {
                    throw new InvalidTemplateException(field, "must be an object");
                }
                JsonObject object = absent ? JsonValue.EMPTY_JSON_OBJECT : (JsonObject) value;
                JsonObjectBuilder out = JSON.createObjectBuilder();
                for (Member m : struct.members()) {
                    m.shape().marshal(object.get(m.name()), Fields.at(field, m.name()), m.omitEmpty(), m.pointer())
                            .ifPresent(v -> out.add(m.name(), v));
                }
                yield Optional.of(out.build());
            }
        };
    }

    /** The value as Go writes it where it is held by value. */
    default JsonValue marshal(JsonValue value, String field) {
        return marshal(value, field, false, false).orElseThrow();
    }

    private static JsonArray array(JsonValue value, String field) {
        if (!(value instanceof JsonArray a)) {
            throw new InvalidTemplateException(field, "must be a list");
        }
        if (a.size() > Fields.MAX_ITEMS) {
            throw new InvalidTemplateException(field, "more than " + Fields.MAX_ITEMS + " items");
        }
        return a;
    }
}

package io.remold.kinitiras.convert;

import io.remold.engine.convert.CannotConvert;
import io.remold.engine.convert.LabelSelectors;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.remold.engine.convert.Jsonpath.all;
import static io.remold.engine.convert.Jsonpath.any;
import static io.remold.engine.convert.Jsonpath.list;
import static io.remold.engine.convert.Jsonpath.literal;
import static io.remold.engine.convert.Jsonpath.member;

/**
 * A policy's {@code resourceSelectors} as one ModRule boolean expression (the selectors OR-ed; none selects every
 * object), written to hold exactly where kinitiras's {@code ResourceMatches} does: apiVersion and kind equal, the
 * namespace when given, then the name alone when given, else the field and label selectors. Also what it reads (a
 * converted rule must not run after a write there, as kinitiras selects once) and what it makes certain about the
 * selected objects. The namespace is the object's {@code metadata.namespace}, which the API server sets to the
 * request's on every namespaced object before admission; label values are strings (ObjectMeta's).
 */
record Selection(String expression, List<List<String>> reads, KnownShape known) {
    private static final String ANNOTATIONS = ".annotations.";

    static Selection of(JsonObject spec) {
        if (!(spec.get("resourceSelectors") instanceof JsonArray selectors) || selectors.isEmpty()) {
            return new Selection("isDefined($)", List.of(), KnownShape.base());
        }
        var terms = new ArrayList<String>();
        var reads = new ArrayList<List<String>>(List.of(List.of("apiVersion"), List.of("kind"),
                List.of("metadata", "namespace")));
        KnownShape known = null;
        for (int i = 0; i < selectors.size(); i++) {
            KnownShape selected = KnownShape.base();
            terms.add(selector(selectors.getJsonObject(i), "spec.resourceSelectors[" + i + "]", reads, selected));
            known = known == null ? selected : known.intersect(selected);
        }
        return new Selection(any(terms), List.copyOf(reads), known);
    }

    private static String selector(JsonObject selector, String field, List<List<String>> reads, KnownShape known) {
        var terms = new ArrayList<String>();
        terms.add("$.apiVersion == " + literal(selector.getString("apiVersion")));
        terms.add("$.kind == " + literal(selector.getString("kind")));
        String namespace = selector.getString("namespace", "");
        if (!namespace.isEmpty()) {
            terms.add("$.metadata.namespace == " + literal(namespace));
        }
        String name = selector.getString("name", "");
        if (!name.isEmpty()) {
            reads.add(List.of("metadata", "name"));
            terms.add("$.metadata.name == " + literal(name));
            return all(terms);
        }
        if (selector.get("fieldSelector") instanceof JsonObject fields) {
            terms.add(fieldSelector(fields, field + ".fieldSelector", reads, known));
        }
        if (selector.get("labelSelector") instanceof JsonObject labels) {
            terms.add(LabelSelectors.expression(labels, "$.metadata.labels"));
            labelsRead(labels, reads, known);
        }
        return all(terms.stream().filter(t -> !t.equals("true")).toList());
    }

    /**
     * The labels a selector reads (a write of a value that is not a string reads as a write of every label: kinitiras
     * then reads no labels at all); a requirement that only a present label meets makes the labels, and that label,
     * certain.
     */
    private static void labelsRead(JsonObject selector, List<List<String>> reads, KnownShape known) {
        if (selector.get("matchLabels") instanceof JsonObject matchLabels) {
            matchLabels.keySet().forEach(key -> {
                reads.add(List.of("metadata", "labels", key));
                known.holdsValue(List.of("metadata", "labels", key));
            });
        }
        if (selector.get("matchExpressions") instanceof JsonArray expressions) {
            for (JsonObject e : expressions.getValuesAs(JsonObject.class)) {
                String operator = e.getString("operator", "");
                List<String> label = List.of("metadata", "labels", e.getString("key", ""));
                reads.add(label);
                if (operator.equals("In") || operator.equals("Exists")) {
                    known.holdsValue(label);
                }
            }
        }
    }

    /**
     * {@code matchFields}, {@code In} and {@code Exists}: the field is a string (equal to one of the values);
     * kinitiras's lookup fails, and the selector does not match, where a step is not an object or the value not a
     * string, as these items do not hold there. {@code NotIn} and {@code DoesNotExist} hold where the lookup finds
     * nothing but not where it fails, which a match item cannot tell apart.
     */
    private static String fieldSelector(JsonObject selector, String field, List<List<String>> reads,
                                        KnownShape known) {
        var terms = new ArrayList<String>();
        if (selector.get("matchFields") instanceof JsonObject matchFields) {
            for (Map.Entry<String, JsonValue> e : matchFields.entrySet()) {
                List<String> path = fieldPath(e.getKey());
                reads.add(path);
                known.holdsValue(path);
                terms.add(jsonpath(path) + " == " + literal(((JsonString) e.getValue()).getString()));
            }
        }
        if (selector.get("matchExpressions") instanceof JsonArray expressions) {
            for (int i = 0; i < expressions.size(); i++) {
                JsonObject e = expressions.getJsonObject(i);
                String operator = e.getString("operator", "");
                if (!operator.equals("In") && !operator.equals("Exists")) {
                    throw new CannotConvert(field + ".matchExpressions[" + i + "].operator: " + operator
                            + " holds where kinitiras finds nothing, but not where a step is not an object, which a"
                            + " match item cannot tell apart");
                }
                List<String> path = fieldPath(e.getString("field", ""));
                reads.add(path);
                known.holdsValue(path);
                List<String> values = e.get("value") instanceof JsonArray array
                        ? array.getValuesAs(JsonString.class).stream().map(JsonString::getString).toList()
                        : List.of();
                String at = jsonpath(path);
                // =~ "" holds exactly for a string
                terms.add(operator.equals("Exists") ? "(" + at + " =~ \"\")"
                        : values.isEmpty() ? "false" : "(isDefined(" + at + ") && " + at + " in " + list(values) + ")");
            }
        }
        return all(terms);
    }

    /** A field as kinitiras splits it: at dots, the part after {@code .annotations.} one key. */
    static List<String> fieldPath(String field) {
        int annotations = field.indexOf(ANNOTATIONS);
        String dotted = annotations < 0 ? field : field.substring(0, annotations);
        var path = new ArrayList<>(List.of(dotted.split("\\.", -1)));
        if (annotations >= 0) {
            path.add("annotations");
            path.add(field.substring(annotations + ANNOTATIONS.length()));
        }
        return List.copyOf(path);
    }

    /** {@code $.a.b["c-d"]}. */
    static String jsonpath(List<String> path) {
        return "$" + members(path);
    }

    /** {@code .a.b["c-d"]}: the member steps as JSONPath and Mustache paths both write them. */
    static String members(List<String> path) {
        var out = new StringBuilder();
        path.forEach(step -> out.append(member(step)));
        return out.toString();
    }
}

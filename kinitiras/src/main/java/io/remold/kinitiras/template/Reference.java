package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.Optional;
import java.util.Set;

/**
 * Where a {@code valueRef} or {@code dataRef} ({@code ResourceRefer}) reads ({@code from}). kinitiras fetches a
 * {@code k8s}, {@code owner} or {@code http} reference before evaluating, and answers an http one as {@code {body:
 * <response>}}, so a path into it starts with {@code body}.
 */
record Reference(String from, JsonObject k8s, JsonObject http) {
    private static final JsonProvider JSON = JsonProvider.provider();
    static final Set<String> SOURCES = Set.of("current", "old", "k8s", "owner", "http");

    /** A reference and the path its CUE selects in the data. */
    record At(Reference reference, CuePath path) {
        static At parse(JsonObject reference, String field) {
            return new At(Reference.parse(reference, field),
                    CuePath.parse(Fields.text(reference, "path", field), Fields.at(field, "path")));
        }

        Optional<JsonValue> find(PolicyInput input, JsonValue fetched) {
            return path.find(reference.root(input, fetched));
        }

        /** The CUE selecting the referenced value. */
        String cue(boolean dataRef) {
            return reference.cueKey(dataRef) + "." + path.text();
        }
    }

    static Reference parse(JsonObject reference, String field) {
        String from = Fields.oneOf(reference, "from", field, SOURCES);
        JsonObject k8s = Fields.object(reference, "k8s", field);
        JsonObject http = Fields.object(reference, "http", field);
        if (from.equals("k8s") && k8s == null) {
            throw new InvalidTemplateException(Fields.at(field, "k8s"), "Required value: from is k8s");
        }
        if (from.equals("http") && http == null) {
            throw new InvalidTemplateException(Fields.at(field, "http"), "Required value: from is http");
        }
        return new Reference(from, k8s, http);
    }

    /** Whether kinitiras fetches this reference's data before evaluating (rather than reading the request's). */
    boolean fetched() {
        return !from.equals("current") && !from.equals("old");
    }

    /**
     * The name the rendered CUE gives this reference's data: the request's {@code object} or {@code oldObject}, or
     * the {@code extraParams} key kinitiras fetches it under ({@code _d} for a validate condition's dataRef).
     */
    String cueKey(boolean dataRef) {
        String key = switch (from) {
            case "current" -> "object";
            case "old" -> "oldObject";
            case "http" -> "http";
            default -> "otherObject";
        };
        return dataRef && fetched() ? key + "_d" : key;
    }

    /** The data the path reads, as kinitiras binds it for the CUE ({@code object}, {@code otherObject}, ...). */
    JsonValue root(PolicyInput input, JsonValue fetched) {
        return switch (from) {
            case "current" -> input.object();
            case "old" -> input.oldObject();
            default -> fetched;
        };
    }

    /**
     * Fetches a k8s, owner or http reference through the request's value sources, its {@code {{key}}}s replaced
     * from the object ({@link ReferenceKeys}).
     */
    JsonValue fetch(PolicyInput input) throws PolicyEvaluationException {
        return switch (from) {
            case "k8s" -> {
                Optional<JsonObject> selector = ReferenceKeys.k8s(k8s, input.object());
                yield selector.isEmpty() ? JsonValue.EMPTY_JSON_OBJECT
                        : first(input.sources().kube(selector.get()), selector.get());
            }
            case "owner" -> owner(input);
            case "http" -> {
                Optional<JsonObject> rendered = ReferenceKeys.http(http, input.object());
                if (rendered.isEmpty()) {
                    yield JsonValue.EMPTY_JSON_OBJECT;
                }
                JsonValue body = input.sources().http(rendered.get());
                if (!(body instanceof JsonObject)) {
                    throw new PolicyEvaluationException("http valueRef: the response body is not a JSON object");
                }
                yield JSON.createObjectBuilder().add("body", body).build();
            }
            default -> JsonValue.NULL;
        };
    }

    /** kinitiras reads a named object (missing is an error) or the first object a label selector selects. */
    private static JsonValue first(JsonValue answer, JsonObject selector) throws PolicyEvaluationException {
        if (answer instanceof JsonArray list) {
            return list.isEmpty() ? JsonValue.NULL : list.get(0);
        }
        if (Cue.isNull(answer) && !text(selector, "name").isEmpty()) {
            throw new PolicyEvaluationException("k8s valueRef: " + text(selector, "kind") + " \""
                    + text(selector, "name") + "\" not found");
        }
        return answer;
    }

    private static JsonValue owner(PolicyInput input) throws PolicyEvaluationException {
        Optional<JsonValue> owners = Patch.at(input.object(), "metadata", "ownerReferences");
        if (owners.isEmpty() || !(owners.get() instanceof JsonArray list) || list.isEmpty()
                || !(list.get(0) instanceof JsonObject owner)) {
            throw new PolicyEvaluationException("owner valueRef: object has no owner reference");
        }
        String name = text(owner, "name");
        if (name.isEmpty()) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        JsonObject selector = JSON.createObjectBuilder()
                .add("apiVersion", text(owner, "apiVersion"))
                .add("kind", text(owner, "kind"))
                .add("namespace", Patch.at(input.object(), "metadata", "namespace")
                        .filter(JsonString.class::isInstance).map(v -> ((JsonString) v).getString()).orElse(""))
                .add("name", name)
                .build();
        return first(input.sources().kube(selector), selector);
    }

    private static String text(JsonObject object, String name) {
        return object.get(name) instanceof JsonString s ? s.getString() : "";
    }
}

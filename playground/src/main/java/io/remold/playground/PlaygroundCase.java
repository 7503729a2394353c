package io.remold.playground;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;

/**
 * What the page sends: the editors' texts and the request's settings. Every field but {@code rules} and
 * {@code resource} may be empty (not given): {@code operation} is then derived as eval derives it, {@code namespace}
 * from the object. Each text becomes the file of the eval flag it stands for.
 */
record PlaygroundCase(String rules, String resource, String old, String namespaceRef, String nodeRef,
                      String operation, String namespace, String kubemodSystemNamespace) {

    /** The case of a JSON object (the page's request, or an example); absent or non-string fields are empty. */
    static PlaygroundCase of(JsonObject json) {
        return new PlaygroundCase(text(json, "rules"), text(json, "resource"), text(json, "old"),
                text(json, "namespaceRef"), text(json, "nodeRef"), text(json, "operation"), text(json, "namespace"),
                text(json, "kubemodSystemNamespace"));
    }

    JsonObject toJson() {
        JsonObjectBuilder json = Json.createObjectBuilder();
        json.add("rules", rules).add("resource", resource).add("old", old).add("namespaceRef", namespaceRef)
                .add("nodeRef", nodeRef).add("operation", operation).add("namespace", namespace)
                .add("kubemodSystemNamespace", kubemodSystemNamespace);
        return json.build();
    }

    private static String text(JsonObject json, String field) {
        return json.get(field) instanceof JsonString s ? s.getString() : "";
    }
}

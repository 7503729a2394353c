package io.remold.server;

import io.remold.api.AdmissionOperation;
import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The parts of an {@code admission.k8s.io/v1} AdmissionReview the webhook reads, taken from the parsed body
 * without any reflective mapping. {@code kind} is the object's kind ({@code request.kind.kind}), {@code group}
 * its API group; {@code resource} and {@code subResource} name what was requested; {@code userName} who requested
 * it ({@code request.userInfo.username}, empty when absent).
 */
record AdmissionReview(String uid, String group, String kind, String resource, String subResource, String name,
                       String namespace, AdmissionOperation operation, JsonValue object, JsonValue oldObject,
                       boolean dryRun, String userName) {
    static final String API_VERSION = "admission.k8s.io/v1";
    static final JsonProvider JSON = JsonProvider.provider();

    /** A request the webhook refuses to evaluate: answered with 400 and this reason. */
    static final class Invalid extends RuntimeException {
        Invalid(String message) {
            super(message);
        }
    }

    static AdmissionReview parse(JsonValue body) {
        if (!(body instanceof JsonObject review)) {
            throw new Invalid("the body is not a JSON object");
        }
        String apiVersion = string(review, "apiVersion", "");
        if (apiVersion == null) {
            throw new Invalid("apiVersion: missing, expected " + API_VERSION);
        }
        if (!API_VERSION.equals(apiVersion)) {
            throw new Invalid("apiVersion: unsupported AdmissionReview version \"" + apiVersion + "\", expected "
                    + API_VERSION);
        }
        if (!"AdmissionReview".equals(string(review, "kind", ""))) {
            throw new Invalid("kind: expected AdmissionReview");
        }
        if (!(review.get("request") instanceof JsonObject request)) {
            throw new Invalid("request: missing or not an object");
        }
        String uid = string(request, "uid", "request.");
        if (uid == null || uid.isEmpty()) {
            throw new Invalid("request.uid: missing");
        }
        String operationName = string(request, "operation", "request.");
        AdmissionOperation operation;
        try {
            operation = AdmissionOperation.valueOf(operationName == null ? "" : operationName);
        } catch (IllegalArgumentException e) {
            throw new Invalid("request.operation: unknown operation \"" + operationName + "\"");
        }
        String group = "";
        String kind = "";
        if (request.get("kind") instanceof JsonObject gvk) {
            group = orEmpty(string(gvk, "group", "request.kind."));
            kind = orEmpty(string(gvk, "kind", "request.kind."));
        }
        String resource = "";
        if (request.get("resource") instanceof JsonObject gvr) {
            resource = orEmpty(string(gvr, "resource", "request.resource."));
        }
        String userName = "";
        if (request.get("userInfo") instanceof JsonObject userInfo) {
            userName = orEmpty(string(userInfo, "username", "request.userInfo."));
        }
        return new AdmissionReview(uid, group, kind, resource,
                orEmpty(string(request, "subResource", "request.")),
                orEmpty(string(request, "name", "request.")),
                orEmpty(string(request, "namespace", "request.")),
                operation,
                nullToNull(request.get("object")),
                nullToNull(request.get("oldObject")),
                request.get("dryRun") == JsonValue.TRUE,
                userName);
    }

    private static String string(JsonObject object, String key, String at) {
        JsonValue value = object.get(key);
        if (value == null || value == JsonValue.NULL) {
            return null;
        }
        if (value instanceof JsonString s) {
            return s.getString();
        }
        throw new Invalid(at + key + ": expected a string");
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    private static JsonValue nullToNull(JsonValue v) {
        return v == JsonValue.NULL ? null : v;
    }

    /** The response half of an AdmissionReview. {@code patch} and {@code denial} may be null. */
    record Response(String uid, JsonArray patch, List<String> warnings, Map<String, String> auditAnnotations,
                    Denial denial) {
        record Denial(int code, String message) {
        }

        static Response allow(String uid) {
            return new Response(uid, null, List.of(), Map.of(), null);
        }

        /** The AdmissionReview answer, written straight into one buffer: it is on every request's path. */
        byte[] toJson() {
            var json = new StringBuilder(256).append("{\"apiVersion\":\"").append(API_VERSION)
                    .append("\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":");
            JsonTree.quote(uid, json).append(",\"allowed\":").append(denial == null);
            if (patch != null && !patch.isEmpty()) {
                json.append(",\"patchType\":\"JSONPatch\",\"patch\":\"").append(Base64.getEncoder()
                        .encodeToString(patch.toString().getBytes(StandardCharsets.UTF_8))).append('"');
            }
            if (denial != null) {
                json.append(",\"status\":{\"code\":").append(denial.code()).append(",\"message\":");
                JsonTree.quote(denial.message(), json).append('}');
            }
            if (!warnings.isEmpty()) {
                json.append(",\"warnings\":[");
                for (int i = 0; i < warnings.size(); i++) {
                    JsonTree.quote(warnings.get(i), i == 0 ? json : json.append(','));
                }
                json.append(']');
            }
            if (!auditAnnotations.isEmpty()) {
                json.append(",\"auditAnnotations\":{");
                boolean first = true;
                for (Map.Entry<String, String> e : auditAnnotations.entrySet()) {
                    JsonTree.quote(e.getKey(), first ? json : json.append(',')).append(':');
                    JsonTree.quote(e.getValue(), json);
                    first = false;
                }
                json.append('}');
            }
            return json.append("}}").toString().getBytes(StandardCharsets.UTF_8);
        }
    }
}

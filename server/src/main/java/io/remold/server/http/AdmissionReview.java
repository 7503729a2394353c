package io.remold.server.http;

import io.remold.api.AdmissionOperation;
import io.remold.api.JsonFields;
import io.remold.json.JsonTree;
import io.remold.server.rules.Requester;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parts of an {@code admission.k8s.io/v1} AdmissionReview the webhook reads, taken from the parsed body
 * without any reflective mapping. {@code kind} is the object's kind ({@code request.kind.kind}), {@code group}
 * its API group; {@code resource} and {@code subResource} name what was requested; {@code userName} who requested
 * it ({@code request.userInfo.username}, empty when absent), {@code userInfo} all of {@code request.userInfo} (null
 * when absent; checked, read by {@link #requester()}).
 */
record AdmissionReview(String uid, String group, String kind, String resource, String subResource, String name,
                       String namespace, AdmissionOperation operation, JsonValue object, JsonValue oldObject,
                       boolean dryRun, String userName, JsonObject userInfo) {
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
        JsonObject userInfo = null;
        if (request.get("userInfo") instanceof JsonObject info) {
            userName = orEmpty(string(info, "username", "request.userInfo."));
            userInfo = checked(info);
        }
        return new AdmissionReview(uid, group, kind, resource,
                orEmpty(string(request, "subResource", "request.")),
                orEmpty(string(request, "name", "request.")),
                orEmpty(string(request, "namespace", "request.")),
                operation,
                nullToNull(request.get("object")),
                nullToNull(request.get("oldObject")),
                request.get("dryRun") == JsonValue.TRUE,
                userName, userInfo);
    }

    /**
     * Who made the request, as an access review asks about them. Built when asked (only {@code /validate-modrule}
     * asks): built on every request it was 1-2% of {@code /mutate}'s CPU. {@link #parse} refused a malformed one.
     */
    Requester requester() {
        if (userInfo == null) {
            return Requester.NOBODY;
        }
        var extra = new LinkedHashMap<String, List<String>>();
        if (userInfo.get("extra") instanceof JsonObject values) {
            values.forEach((key, value) -> extra.put(key, strings(value)));
        }
        return new Requester(userName, strings(userInfo.get("groups")), orEmpty(string(userInfo, "uid", "")), extra);
    }

    /** {@code userInfo} if {@link #requester()} can read it; else the request is refused, naming the field. */
    private static JsonObject checked(JsonObject userInfo) {
        if (userInfo.get("extra") instanceof JsonObject extra) {
            for (var entry : extra.entrySet()) {
                if (!areStrings(entry.getValue())) {
                    throw new Invalid("request.userInfo.extra." + entry.getKey() + ": expected an array of strings");
                }
            }
        }
        if (!areStrings(userInfo.get("groups"))) {
            throw new Invalid("request.userInfo.groups: expected an array of strings");
        }
        string(userInfo, "uid", "request.userInfo.");
        return userInfo;
    }

    /** Whether {@code value} is a JSON array of strings, or absent or null (none). */
    private static boolean areStrings(JsonValue value) {
        if (value == null || value == JsonValue.NULL) {
            return true;
        }
        if (!(value instanceof JsonArray array)) {
            return false;
        }
        for (JsonValue item : array) {
            if (!(item instanceof JsonString)) {
                return false;
            }
        }
        return true;
    }

    private static List<String> strings(JsonValue value) {
        return value instanceof JsonArray array ? array.getValuesAs(JsonString::getString) : List.of();
    }

    private static String string(JsonObject object, String key, String at) {
        return JsonFields.string(object, key, null, v -> new Invalid(at + key + ": expected a string"));
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

package io.remold.gatekeeper.match;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;

/** An object's API group (empty for the core group), version and kind. */
public record GroupVersionKind(String group, String version, String kind) {
    private static final GroupVersionKind NONE = new GroupVersionKind("", "", "");

    /**
     * The object's group, version and kind as Kubernetes reads them from {@code apiVersion} and {@code kind}: {@code
     * v1} is the core group, {@code apps/v1} is group {@code apps}; an apiVersion with more than one slash reads as
     * nothing at all, kind included.
     */
    public static GroupVersionKind of(JsonObject object) {
        String apiVersion = object.get("apiVersion") instanceof JsonString s ? s.getString() : "";
        String kind = object.get("kind") instanceof JsonString s ? s.getString() : "";
        int slash = apiVersion.indexOf('/');
        if (slash < 0) {
            return new GroupVersionKind("", apiVersion, kind);
        }
        if (apiVersion.indexOf('/', slash + 1) >= 0) {
            return NONE;
        }
        return new GroupVersionKind(apiVersion.substring(0, slash), apiVersion.substring(slash + 1), kind);
    }
}

package io.remold.gatekeeper.match;

import jakarta.json.JsonObject;

/** An API group and kind, without version: what the mutation system indexes mutators by. */
public record GroupKind(String group, String kind) {
    public static GroupKind of(GroupVersionKind gvk) {
        return new GroupKind(gvk.group(), gvk.kind());
    }

    public static GroupKind of(JsonObject object) {
        return of(GroupVersionKind.of(object));
    }
}

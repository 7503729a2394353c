package io.remold.server.existing;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Who owns which fields of an object, from its {@code metadata.managedFields}: one set per field manager (its Apply
 * and Update entries together). Entries of a subresource (status) are left out: an apply to the object itself
 * never conflicts with them.
 */
record ManagedFields(Map<String, FieldSet> byManager) {

    static ManagedFields of(JsonObject object) {
        var byManager = new LinkedHashMap<String, FieldSet>();
        if (object.get("metadata") instanceof JsonObject metadata
                && metadata.get("managedFields") instanceof jakarta.json.JsonArray entries) {
            for (JsonValue value : entries) {
                if (value instanceof JsonObject entry && entry.get("fieldsV1") instanceof JsonObject fields
                        && !fields.isEmpty() && entry.getString("subresource", "").isEmpty()
                        && entry.get("manager") instanceof JsonString manager) {
                    byManager.computeIfAbsent(manager.getString(), m -> new FieldSet()).add(FieldSet.parse(fields));
                }
            }
        }
        return new ManagedFields(byManager);
    }

    /** What {@code manager} owns (an empty set when nothing). */
    FieldSet of(String manager) {
        return byManager.getOrDefault(manager, new FieldSet());
    }

    /** The first other manager that owns a field of {@code fields}, with the field. */
    Optional<Map.Entry<String, String>> otherOwner(String manager, FieldSet fields) {
        for (var entry : byManager.entrySet()) {
            if (!entry.getKey().equals(manager)) {
                var field = fields.overlap(entry.getValue());
                if (field.isPresent()) {
                    return Optional.of(Map.entry(entry.getKey(), field.get()));
                }
            }
        }
        return Optional.empty();
    }
}

package io.remold.cli.convert;

import io.remold.api.MatchFor;
import io.remold.api.MatchItem;
import io.remold.api.ModRule;
import io.remold.api.ModRuleSpec;
import io.remold.api.PatchOperation;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;

/** A ModRule as the manifest {@code ModRules} reads back: only the fields that differ from their defaults. */
final class ModRuleManifest {
    private static final JsonProvider JSON = JsonProvider.provider();

    private ModRuleManifest() {
    }

    static JsonObject of(ModRule rule) {
        JsonObjectBuilder metadata = JSON.createObjectBuilder().add("name", rule.name());
        if (rule.namespace() != null) {
            metadata.add("namespace", rule.namespace());
        }
        ModRuleSpec spec = rule.spec();
        JsonObjectBuilder out = JSON.createObjectBuilder().add("type", spec.type().name());
        JsonArrayBuilder operations = JSON.createArrayBuilder();
        spec.admissionOperations().forEach(op -> operations.add(op.name()));
        out.add("admissionOperations", operations);
        if (spec.executionTier() != 0) {
            out.add("executionTier", spec.executionTier());
        }
        if (spec.targetNamespaceRegex() != null) {
            out.add("targetNamespaceRegex", spec.targetNamespaceRegex());
        }
        if (spec.rejectMessage() != null) {
            out.add("rejectMessage", spec.rejectMessage());
        }
        JsonArrayBuilder match = JSON.createArrayBuilder();
        spec.match().forEach(item -> match.add(item(item)));
        out.add("match", match);
        if (!spec.patch().isEmpty()) {
            JsonArrayBuilder patch = JSON.createArrayBuilder();
            spec.patch().forEach(op -> patch.add(operation(op)));
            out.add("patch", patch);
        }
        return JSON.createObjectBuilder().add("apiVersion", ModRule.REMOLD_API_VERSION).add("kind", "ModRule")
                .add("metadata", metadata).add("spec", out).build();
    }

    private static JsonObjectBuilder item(MatchItem item) {
        JsonObjectBuilder out = JSON.createObjectBuilder().add("select", item.select());
        if (item.matchFor() != MatchFor.Any) {
            out.add("matchFor", item.matchFor().name());
        }
        if (item.matchValue() != null) {
            out.add("matchValue", item.matchValue());
        }
        if (!item.matchValues().isEmpty()) {
            out.add("matchValues", JSON.createArrayBuilder(item.matchValues()));
        }
        if (item.matchRegex() != null) {
            out.add("matchRegex", item.matchRegex());
        }
        if (item.negate()) {
            out.add("negate", true);
        }
        return out;
    }

    private static JsonObjectBuilder operation(PatchOperation op) {
        JsonObjectBuilder out = JSON.createObjectBuilder().add("op", op.op().name());
        if (op.select() != null) {
            out.add("select", op.select());
        }
        out.add("path", op.path());
        if (op.value() != null) {
            out.add("value", op.value());
        }
        return out;
    }
}

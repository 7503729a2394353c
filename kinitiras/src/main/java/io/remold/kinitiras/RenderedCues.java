package io.remold.kinitiras;

import io.remold.kinitiras.template.OverrideTemplate;
import io.remold.kinitiras.template.ValidateTemplate;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What kinitiras's policy webhook writes into a policy when it is admitted: every rule with a {@code template} gets
 * the CUE the template renders to as its {@code renderedCue}, and a validate condition without an {@code affectMode}
 * gets {@code reject}. A rule without a template keeps the renderedCue it was given (kinitiras never runs that one).
 * An UPDATE that leaves the spec as it was writes nothing, as in kinitiras. Operations are {@code add}, which sets a
 * member whether it is there or not.
 */
final class RenderedCues {
    private static final JsonProvider JSON = JsonProvider.provider();

    private RenderedCues() {
    }

    /**
     * The operations for {@code policy} ({@code old}: the stored policy on UPDATE, else null); a template that does
     * not compile is refused with its field. Parts that do not read are left alone: admission refuses them.
     */
    static List<JsonObject> patch(JsonObject policy, JsonObject old) {
        if (!(policy.get("spec") instanceof JsonObject spec)
                || old != null && Objects.equals(spec, old.get("spec"))) {
            return List.of();
        }
        boolean validation = policy.get("kind") instanceof JsonString kind
                && kind.getString().equals(Policy.Kind.ClusterValidatePolicy.name());
        List<JsonObject> operations = new ArrayList<>();
        JsonArray rules = spec.get(validation ? "validateRules" : "overrideRules") instanceof JsonArray a ? a
                : JsonValue.EMPTY_JSON_ARRAY;
        for (int i = 0; i < rules.size(); i++) {
            if (!(rules.get(i) instanceof JsonObject rule)) {
                continue;
            }
            if (validation) {
                String at = "/spec/validateRules/" + i;
                if (!(rule.get("template") instanceof JsonObject template)) {
                    continue;
                }
                if (template.get("condition") instanceof JsonObject condition
                        && !(condition.get("affectMode") instanceof JsonString m && !m.getString().isEmpty())) {
                    operations.add(add(at + "/template/condition/affectMode", "reject"));
                }
                operations.add(add(at + "/renderedCue", ValidateTemplate.parse(template,
                        "spec.validateRules[" + i + "].template").renderedCue()));
            } else if (rule.get("overriders") instanceof JsonObject overriders
                    && overriders.get("template") instanceof JsonObject template) {
                operations.add(add("/spec/overrideRules/" + i + "/overriders/renderedCue", OverrideTemplate.parse(
                        template, "spec.overrideRules[" + i + "].overriders.template").renderedCue()));
            }
        }
        return List.copyOf(operations);
    }

    private static JsonObject add(String path, String value) {
        return JSON.createObjectBuilder().add("op", "add").add("path", path).add("value", value).build();
    }
}

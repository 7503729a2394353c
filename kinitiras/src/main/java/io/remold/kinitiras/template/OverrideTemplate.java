package io.remold.kinitiras.template;

import io.remold.kinitiras.Overrider;
import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A {@code template} overrider ({@code OverrideRuleTemplate}) compiled once: {@link #patches} gives the JSON patch
 * operations kinitiras's CUE rendered from the same template gives for a request, in its order (the map or
 * resource lists a type needs are created first). A {@code valueRef} of k8s, owner or http is fetched for every
 * request, used or not, as kinitiras does: a failed fetch fails the overrider.
 */
public final class OverrideTemplate implements Overrider {
    static final Set<String> TYPES = Set.of("annotations", "labels", "resources", "resourcesOversell",
            "tolerations", "affinity");
    static final Set<String> OPERATIONS = Set.of("add", "replace", "remove");

    private final Optional<Reference> fetched;
    private final TemplateRule rule;

    private OverrideTemplate(Optional<Reference> fetched, TemplateRule rule) {
        this.fetched = fetched;
        this.rule = rule;
    }

    /**
     * Compiles {@code template}, found at {@code field} of the policy (e.g. {@code
     * spec.overrideRules[0].overriders.template}); refuses what kinitiras's CRD or its rendered CUE refuses.
     */
    public static OverrideTemplate parse(JsonObject template, String field) throws InvalidTemplateException {
        String type = Fields.oneOf(template, "type", field, TYPES);
        String op = Fields.oneOf(template, "operation", field, OPERATIONS);
        JsonObject valueRef = Fields.object(template, "valueRef", field);
        Optional<Reference> fetched = Optional.ofNullable(valueRef)
                .map(r -> Reference.parse(r, Fields.at(field, "valueRef"))).filter(Reference::fetched);
        TemplateRule rule = switch (type) {
            case "annotations", "labels" -> MetadataRule.parse(type, op, template, field);
            case "resources" -> ResourcesRule.parse(op, template, field);
            case "resourcesOversell" -> OversellRule.parse(op, template, field);
            case "tolerations" -> TolerationsRule.parse(op, template, field);
            default -> AffinityRule.parse(op, template, field);
        };
        return new OverrideTemplate(fetched, rule);
    }

    /**
     * The template as the {@code renderedCue} kinitiras's policy webhook writes into the rule: run by kinitiras's
     * engine with {@code data: {object, oldObject, extraParams}}, it gives what {@link #patches} gives.
     */
    public String renderedCue() {
        String bindings = fetched.map(r -> CueRendering.binding(r.cueKey(false))).orElse("")
                + rule.cueDeclarations();
        return CueRendering.override(rule.cueImports(), bindings, rule.cueSteps());
    }

    /**
     * A {@code labels} or {@code annotations} template that fetches nothing (a constant {@code value}, {@code remove},
     * or a {@code valueRef} of the object itself): what {@code remold convert} needs to write it as ModRules; empty
     * for any other template.
     */
    public Optional<MapEdit> mapEdit() {
        if (fetched.isPresent() || !(rule instanceof MetadataRule m)) {
            return Optional.empty();
        }
        return Optional.of(m.edit());
    }

    /**
     * The map a labels or annotations template writes ({@code labels}, {@code annotations}), which it first creates
     * as {@code {}} when the object has none, then its operations on the map's keys, as JSON patch operations, in
     * order; a {@code remove} removes the key only where it is present. With {@code copiesValueRef} the one operation
     * has no value: it writes what the {@code valueRef} finds, and only where it finds something.
     */
    public record MapEdit(String map, List<JsonObject> operations, boolean copiesValueRef) {
        public MapEdit {
            operations = List.copyOf(operations);
        }
    }

    @Override
    public List<JsonObject> patches(PolicyInput input) throws PolicyEvaluationException {
        JsonValue data = fetched.isPresent() ? fetched.get().fetch(input) : null;
        return List.copyOf(rule.patches(input, data));
    }
}

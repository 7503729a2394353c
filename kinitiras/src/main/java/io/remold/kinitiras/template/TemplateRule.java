package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.List;

/** What one override template type writes, as kinitiras's CUE for that type does. */
sealed interface TemplateRule permits MetadataRule, ResourcesRule, OversellRule, TolerationsRule, AffinityRule {
    /** {@code fetched} is the data of a k8s, owner or http valueRef ({@code null} when there is none). */
    List<JsonObject> patches(PolicyInput input, JsonValue fetched) throws PolicyEvaluationException;

    /** The same rule as the steps of a rendered CUE ({@link CueRendering#override}). */
    List<String> cueSteps();

    /** Fields its steps read, declared before them. */
    default String cueDeclarations() {
        return "";
    }

    /** The CUE packages its steps use besides {@code list}. */
    default List<String> cueImports() {
        return List.of();
    }
}

package io.remold.kinitiras.cue;

import io.remold.cue.CueEvaluator.CueParameter;
import io.remold.cue.CueException;
import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.List;
import java.util.Optional;

/**
 * A rule's {@code renderedCue} run as kinitiras's engine runs it: one parameter {@code data: {object, oldObject,
 * extraParams}}. Remold runs templates natively; tests run their rendered CUE this way to show it gives the same.
 */
public final class RenderedCue {
    private RenderedCue() {
    }

    /** An override's patches; the old object is {@code {}} when the request has none, as kinitiras passes it. */
    public static List<JsonObject> patches(CueSettings settings, String text, PolicyInput input,
                                           JsonObject extraParams) throws CueException, PolicyEvaluationException {
        JsonValue old = input.oldObject().getValueType() == JsonValue.ValueType.NULL ? JsonValue.EMPTY_JSON_OBJECT
                : input.oldObject();
        String field = "overriders.renderedCue";
        return CueOverrider.decode(CueRun.evaluate(settings, settings.evaluator().compile(text, settings.owner()), input,
                List.of(data(input, old, extraParams)), "patches", field), field);
    }

    /**
     * A validation's refusal; the old object only on UPDATE; with {@code affectModeAllow} the verdict inverted (a
     * refusal then has kinitiras's empty reason).
     */
    public static Optional<String> refusal(CueSettings settings, String text, PolicyInput input,
                                           JsonObject extraParams, boolean affectModeAllow)
            throws CueException, PolicyEvaluationException {
        JsonValue old = "UPDATE".equals(input.operation()) ? input.oldObject() : JsonValue.NULL;
        String field = "renderedCue";
        Optional<String> refusal = CueValidator.decode(CueRun.evaluate(settings, settings.evaluator().compile(text, settings.owner()),
                input, List.of(data(input, old, extraParams)), "validate", field), field);
        if (!affectModeAllow) {
            return refusal;
        }
        return refusal.isPresent() ? Optional.empty() : Optional.of("");
    }

    private static CueParameter data(PolicyInput input, JsonValue old, JsonObject extraParams) {
        return new CueParameter("data", Json.createObjectBuilder().add(CueRun.OBJECT, input.object())
                .add(CueRun.OLD_OBJECT, old).add("extraParams", extraParams).build());
    }
}

package io.remold.kinitiras.cue;

import io.remold.cue.CompiledCue;
import io.remold.cue.CueEvaluator.CueParameter;
import io.remold.cue.CueException;
import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import io.remold.kinitiras.Validator;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A validate rule's {@code cue}, given {@code object}, and {@code oldObject} on UPDATE; its {@code validate: {valid,
 * reason}} is read as kinitiras decodes it: {@code valid} true unless set, {@code reason} empty unless set.
 */
public final class CueValidator implements Validator {
    private final CueSettings settings;
    private final CompiledCue cue;

    private CueValidator(CueSettings settings, CompiledCue cue) {
        this.settings = settings;
        this.cue = cue;
    }

    /** A rule's {@code cue}. */
    public static CueValidator cue(CueSettings settings, String text) throws CueException {
        return new CueValidator(settings, settings.evaluator().compile(text, settings.owner()));
    }

    @Override
    public Optional<String> refusal(PolicyInput input) throws PolicyEvaluationException {
        JsonValue old = "UPDATE".equals(input.operation()) ? input.oldObject() : JsonValue.NULL;
        List<CueParameter> parameters = new ArrayList<>();
        parameters.add(new CueParameter(CueRun.OBJECT, input.object()));
        if (old.getValueType() != JsonValue.ValueType.NULL) {
            parameters.add(new CueParameter(CueRun.OLD_OBJECT, old));
        }
        String field = "cue";
        return decode(CueRun.evaluate(settings, cue, input, parameters, "validate", field), field);
    }

    /** The refusal a {@code validate} output says, as Go decodes it; empty when it is valid. */
    static Optional<String> decode(JsonValue result, String field) throws PolicyEvaluationException {
        boolean valid = true;
        String reason = "";
        if (result instanceof JsonObject fields) {
            JsonValue validValue = fields.getOrDefault("valid", JsonValue.NULL);
            if (validValue.getValueType() == JsonValue.ValueType.TRUE
                    || validValue.getValueType() == JsonValue.ValueType.FALSE) {
                valid = validValue.getValueType() == JsonValue.ValueType.TRUE;
            } else if (validValue.getValueType() != JsonValue.ValueType.NULL) {
                throw new PolicyEvaluationException(field + ": validate.valid is " + CueOverrider.kind(validValue)
                        + ", not a bool");
            }
            JsonValue reasonValue = fields.getOrDefault("reason", JsonValue.NULL);
            if (reasonValue instanceof JsonString s) {
                reason = s.getString();
            } else if (reasonValue.getValueType() != JsonValue.ValueType.NULL) {
                throw new PolicyEvaluationException(field + ": validate.reason is " + CueOverrider.kind(reasonValue)
                        + ", not a string");
            }
        } else if (result.getValueType() != JsonValue.ValueType.NULL) {
            throw new PolicyEvaluationException(field + ": validate is " + CueOverrider.kind(result)
                    + ", not {valid, reason}");
        }
        return valid ? Optional.empty() : Optional.of(reason);
    }
}

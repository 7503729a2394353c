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
 * A validate rule's {@code cue} (given {@code object}, and {@code oldObject} on UPDATE) or {@code renderedCue}
 * (given {@code data}); its {@code validate: {valid, reason}} is read as kinitiras decodes it: {@code valid} true
 * unless set, {@code reason} empty unless set; a rendered condition with {@code affectMode: allow} inverts it.
 */
public final class CueValidator implements Validator {
    private final CueSettings settings;
    private final CompiledCue cue;
    private final ExtraParameters extra; // null for a hand-written cue
    private final boolean inverted;

    private CueValidator(CueSettings settings, CompiledCue cue, ExtraParameters extra, boolean inverted) {
        this.settings = settings;
        this.cue = cue;
        this.extra = extra;
        this.inverted = inverted;
    }

    /** A rule's {@code cue}. */
    public static CueValidator cue(CueSettings settings, String text) throws CueException {
        return new CueValidator(settings, settings.evaluator().compile(text, settings.owner()), null, false);
    }

    /** A rule's {@code renderedCue}; {@code affectModeAllow} when its template's condition says {@code allow}. */
    public static CueValidator renderedCue(CueSettings settings, String text, ExtraParameters extra,
                                           boolean affectModeAllow) throws CueException {
        return new CueValidator(settings, settings.evaluator().compile(text, settings.owner()), extra, affectModeAllow);
    }

    @Override
    public Optional<String> refusal(PolicyInput input) throws PolicyEvaluationException {
        JsonValue old = "UPDATE".equals(input.operation()) ? input.oldObject() : JsonValue.NULL;
        List<CueParameter> parameters = new ArrayList<>();
        if (extra == null) {
            parameters.add(new CueParameter(CueRun.OBJECT, input.object()));
            if (old.getValueType() != JsonValue.ValueType.NULL) {
                parameters.add(new CueParameter(CueRun.OLD_OBJECT, old));
            }
        } else {
            parameters.add(CueRun.data(input, old, extra));
        }
        String field = extra == null ? "cue" : "renderedCue";
        JsonValue result = CueRun.evaluate(settings, cue, input, parameters, "validate", field);
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
        return valid != inverted ? Optional.empty() : Optional.of(reason);
    }
}

package io.remold.kinitiras.cue;

import io.remold.cue.CompiledCue;
import io.remold.cue.CueEvaluator.CueParameter;
import io.remold.cue.CueException;
import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import jakarta.json.JsonValue;

import java.util.List;

/** One evaluation of a policy's CUE. */
final class CueRun {
    static final String OBJECT = "object";
    static final String OLD_OBJECT = "oldObject";

    private CueRun() {
    }

    /** The value at {@code output}; a failure's message starts with the policy's {@code field}. */
    static JsonValue evaluate(CueSettings settings, CompiledCue cue, PolicyInput input, List<CueParameter> parameters,
                              String output, String field) throws PolicyEvaluationException {
        try {
            long own = System.nanoTime() + settings.timeout().toNanos();
            return settings.evaluator().evaluate(cue, parameters, output,
                    own - input.deadlineNanos() < 0 ? own : input.deadlineNanos(), new ProcessingHttp(input.sources()));
        } catch (CueException e) {
            throw new PolicyEvaluationException(field + ": " + e.getMessage(), e);
        }
    }
}

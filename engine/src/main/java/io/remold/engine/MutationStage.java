package io.remold.engine;

import io.remold.templating.ExternalData;
import jakarta.json.JsonObject;

import java.util.List;

/**
 * A family of mutation rules beside ModRules (Gatekeeper's mutators; later scripts), plugged into the engine by the
 * server. The engine runs its stages in order after the ModRule Patch rules, each on the previous one's result, and
 * answers one patch for all of them; DELETE requests reach no stage. Implementations are immutable and thread-safe.
 */
public interface MutationStage {
    /** The rules this stage holds. */
    int ruleCount();

    /**
     * The object after this stage's rules, or {@code object} itself when they changed nothing. Adds an outcome per
     * rule that matched (and, when the request asks for an explanation, per rule that did not). A failure never
     * throws: the stage leaves the object as it was and says why in an outcome's {@code error}.
     */
    JsonObject mutate(JsonObject object, AdmissionRequest request, List<RuleOutcome> outcomes);

    /**
     * The same, for a family whose mutation may also refuse the request (a script answering {@code Allowed: false}):
     * adds a rejection per rule that refuses it.
     */
    default JsonObject mutate(JsonObject object, AdmissionRequest request, List<RuleOutcome> outcomes,
                              List<Rejection> rejections) {
        return mutate(object, request, outcomes);
    }

    /**
     * The same, for a family whose rules ask external data providers: through {@code external}, the engine's view
     * of this admission request, so that ModRules and stages share one request's wait bound. The engine calls this
     * one.
     */
    default JsonObject mutate(JsonObject object, AdmissionRequest request, List<RuleOutcome> outcomes,
                              List<Rejection> rejections, ExternalData external) {
        return mutate(object, request, outcomes, rejections);
    }
}

package io.remold.engine;

import jakarta.json.JsonObject;

import java.util.List;

/**
 * A family of validation rules beside the ModRule Reject rules (scripts), plugged into the engine by the server. The
 * engine runs its validation stages after the Reject rules, against the same object. Implementations are immutable
 * and thread-safe.
 */
public interface ValidationStage {
    /** The rules this stage holds. */
    int ruleCount();

    /**
     * Adds a rejection per rule that refuses the object (a rule that fails refuses it too, with why: validation
     * fails closed) and an outcome per rule that ran. Never throws.
     */
    void validate(JsonObject object, AdmissionRequest request, List<Rejection> rejections, List<RuleOutcome> outcomes);
}

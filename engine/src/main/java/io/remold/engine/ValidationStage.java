package io.remold.engine;

import jakarta.json.JsonObject;

/**
 * A family of validation rules beside the ModRule Reject rules. The engine runs its validation stages after the Reject
 * rules, against the same object.
 */
public non-sealed interface ValidationStage extends Stage {
    /**
     * Adds a rejection per rule that refuses the object (a rule that fails refuses it too, with why: validation fails
     * closed) and an outcome per rule that refused it. Never throws.
     */
    void validate(JsonObject object, StageContext context);
}

package io.remold.engine;

import jakarta.json.JsonObject;

/**
 * A family of mutation rules beside ModRules. The engine runs its mutation stages in order after the ModRule Patch
 * rules, each on the previous one's result, and answers one patch for all of them; DELETE requests reach no stage.
 */
public non-sealed interface MutationStage extends Stage {
    /**
     * The object after this stage's rules, or {@code object} itself when they changed nothing. A failure never throws:
     * the stage leaves the object as it was (or the failing rule's part of it) and says why in an outcome's
     * {@code error}. A family whose mutation may refuse the request (a script answering {@code Allowed: false}) adds a
     * rejection.
     */
    JsonObject mutate(JsonObject object, StageContext context);
}

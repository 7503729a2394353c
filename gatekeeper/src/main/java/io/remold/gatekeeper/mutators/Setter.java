package io.remold.gatekeeper.mutators;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

/**
 * What a mutator does where its location ends (Gatekeeper's setter). {@link Core} walks the location, creating
 * missing parents and keyed-list elements as Gatekeeper does, and calls this at the last node.
 */
interface Setter {
    /**
     * The field's new value given its current one ({@code null} when absent): {@code current} itself (or an equal
     * value) for no change, {@code null} to leave an absent field absent. Parents that {@link Core} created on the
     * way stay even then, as in Gatekeeper.
     */
    JsonValue set(JsonValue current) throws MutationException;

    /**
     * The whole element to put where the location ends in a keyed list ({@code spec.containers[name: foo]}); only
     * Assign may do that, so the default refuses.
     */
    default JsonObject keyedListValue() throws MutationException {
        throw new MutationException("only Assign may set a whole keyed list element");
    }
}

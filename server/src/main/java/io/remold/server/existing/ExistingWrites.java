package io.remold.server.existing;

import io.remold.engine.RuleFamily;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;

/**
 * What the leader does to an existing object that an enforced rule with {@code existing: Apply} would change: applies
 * the rule's patch through server-side apply under Remold's own field manager, a dry run first. Never throws: the
 * outcome says what happened, and a conflict with another field manager stops the rule for that object.
 */
public interface ExistingWrites {
    Outcome apply(RuleFamily family, String rule, JsonObject object, JsonArray patch);

    sealed interface Outcome {
        /** The object now holds the rule's change. */
        record Applied() implements Outcome {
        }

        /** Another field manager owns a field the change sets to another value: not forced, reported. */
        record Conflict(String manager, String field, String message) implements Outcome {
        }

        /** The API server refused the change (the dry run or the apply): its message. */
        record Refused(String message) implements Outcome {
        }

        /** Not attempted: why (a running Pod's fields, a change not expressible as an apply, the write budget). */
        record Skipped(String why) implements Outcome {
        }
    }
}

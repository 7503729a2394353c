package io.remold.server.kube;

import io.remold.api.ModRuleException;
import io.remold.engine.RuleCompilation;
import io.remold.gatekeeper.GatekeeperFamily;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The {@code Ready} condition of a rule's status (a ModRule's or a Gatekeeper mutator's), without its transition time (which is not compared: a
 * condition is rewritten only when status, reason, message or observed generation differ).
 */
record ReadyCondition(boolean ready, String reason, String message, long observedGeneration) {
    static final String TYPE = "Ready";
    static final String COMPILED = "Compiled";
    static final String COMPILE_ERROR = "CompileError";
    /** Gatekeeper's own error type for it, which its users and tools read in {@code byPod[].errors}. */
    static final String SCHEMA_CONFLICT = "ErrConflictingSchema";
    static final String START_ERROR = "StartError";
    static final String MUTATOR_READY = GatekeeperFamily.READY;
    static final String PROVIDER_READY = "provider in force";

    static ReadyCondition of(RuleCompilation compilation, long generation) {
        if (compilation.ok()) {
            return ready("rule compiled", generation);
        }
        return invalid(compilation.errors().stream().map(RuleCompilation.Problem::toString)
                .collect(Collectors.joining("; ")), generation);
    }

    static ReadyCondition of(ModRuleException unreadable, long generation) {
        String field = unreadable.field();
        return invalid(field == null || field.isEmpty() ? unreadable.problem() : field + ": " + unreadable.problem(),
                generation);
    }

    static ReadyCondition ready(String message, long generation) {
        return new ReadyCondition(true, COMPILED, message, generation);
    }

    static ReadyCondition invalid(String message, long generation) {
        return new ReadyCondition(false, COMPILE_ERROR, message, generation);
    }

    /** A valid mutator that Gatekeeper's schema check disables, as Gatekeeper reports it in {@code byPod} errors. */
    static ReadyCondition conflict(String why, long generation) {
        return new ReadyCondition(false, SCHEMA_CONFLICT, "disabled by a schema conflict: " + why, generation);
    }

    /** A compiled script rule whose start (top level, {@code jsa_init}, start-up budget) failed. */
    static ReadyCondition startFailed(String why, long generation) {
        return new ReadyCondition(false, START_ERROR, "its start failed: " + why, generation);
    }

    /**
     * The Ready condition in {@code status.conditions} of a rule manifest, if any; else, for a Gatekeeper mutator
     * whose CRD is Gatekeeper's own (its status schema has no conditions, so the API server prunes them), the one
     * that the first {@code status.byPod} entry tells.
     */
    static Optional<Observed> observed(JsonObject rule) {
        if (!(rule.get("status") instanceof JsonObject status)) {
            return Optional.empty();
        }
        if (status.get("conditions") instanceof JsonArray conditions) {
            for (JsonValue value : conditions) {
                if (value instanceof JsonObject c && TYPE.equals(string(c, "type"))) {
                    var condition = new ReadyCondition("True".equals(string(c, "status")), string(c, "reason"),
                            string(c, "message"), generation(c));
                    return Optional.of(new Observed(condition, string(c, "lastTransitionTime")));
                }
            }
        }
        if (status.get("byPod") instanceof JsonArray pods && !pods.isEmpty() && pods.get(0) instanceof JsonObject pod) {
            boolean enforced = pod.getBoolean("enforced", false);
            JsonObject error = pod.get("errors") instanceof JsonArray errors && !errors.isEmpty()
                    && errors.get(0) instanceof JsonObject e ? e : JsonValue.EMPTY_JSON_OBJECT;
            if (enforced) {
                return Optional.of(new Observed(ready(MUTATOR_READY, generation(pod)), null));
            }
            String reason = string(error, "type");
            return Optional.of(new Observed(new ReadyCondition(false, reason == null ? COMPILE_ERROR : reason,
                    string(error, "message"), generation(pod)), null));
        }
        return Optional.empty();
    }

    private static long generation(JsonObject o) {
        return o.get("observedGeneration") instanceof JsonNumber n ? n.longValue() : 0;
    }

    /** A condition as found on the object, with its transition time. */
    record Observed(ReadyCondition condition, String lastTransitionTime) {
    }

    String status() {
        return ready ? "True" : "False";
    }

    private static String string(JsonObject object, String field) {
        return object.get(field) instanceof JsonString s ? s.getString() : null;
    }
}

package io.remold.server.kube;

import io.remold.api.ModRuleException;
import io.remold.engine.RuleCompilation;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The {@code Ready} condition of a ModRule's status, without its transition time (which is not compared: a
 * condition is rewritten only when status, reason, message or observed generation differ).
 */
record ReadyCondition(boolean ready, String reason, String message, long observedGeneration) {
    static final String TYPE = "Ready";
    static final String COMPILED = "Compiled";
    static final String COMPILE_ERROR = "CompileError";

    static ReadyCondition of(RuleCompilation compilation, long generation) {
        if (compilation.ok()) {
            return new ReadyCondition(true, COMPILED, "rule compiled", generation);
        }
        String message = compilation.errors().stream().map(RuleCompilation.Problem::toString)
                .collect(Collectors.joining("; "));
        return new ReadyCondition(false, COMPILE_ERROR, message, generation);
    }

    static ReadyCondition of(ModRuleException unreadable, long generation) {
        String field = unreadable.field();
        String message = field == null || field.isEmpty() ? unreadable.problem() : field + ": " + unreadable.problem();
        return new ReadyCondition(false, COMPILE_ERROR, message, generation);
    }

    /** The Ready condition in {@code status.conditions} of a ModRule manifest, if any. */
    static Optional<Observed> observed(JsonObject modRule) {
        if (!(modRule.get("status") instanceof JsonObject status)
                || !(status.get("conditions") instanceof JsonArray conditions)) {
            return Optional.empty();
        }
        for (JsonValue value : conditions) {
            if (value instanceof JsonObject c && TYPE.equals(string(c, "type"))) {
                long generation = c.get("observedGeneration") instanceof JsonNumber n ? n.longValue() : 0;
                var condition = new ReadyCondition("True".equals(string(c, "status")), string(c, "reason"),
                        string(c, "message"), generation);
                return Optional.of(new Observed(condition, string(c, "lastTransitionTime")));
            }
        }
        return Optional.empty();
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

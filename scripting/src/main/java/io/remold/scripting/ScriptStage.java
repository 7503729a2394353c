package io.remold.scripting;

import io.remold.engine.AdmissionRequest;
import io.remold.engine.Engine;
import io.remold.engine.MutationStage;
import io.remold.engine.Rejection;
import io.remold.engine.RuleFamily;
import io.remold.engine.RuleOutcome;
import io.remold.engine.StageContext;
import io.remold.engine.ValidationStage;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.List;
import java.util.Locale;

/**
 * The script rules of one rule set, as an engine stage for both webhooks. {@code jsa_mutate} runs after the ModRules
 * and the Gatekeeper mutators, each script on the previous one's result, and its {@code Result} becomes part of the
 * engine's one patch; {@code jsa_validate} runs after the Reject rules. A script that fails (throws, passes a bound)
 * fails its rule only: a mutation is skipped with the reason in its outcome (the webhook warns), a validation
 * refuses with the reason. The calls of one request end by its deadline (the engine's, shared with the other rule
 * families, and at most {@link ScriptLimits#requestBudget()}); once it is spent, the rules not yet run fail the same
 * way. Immutable and thread-safe.
 */
public final class ScriptStage implements MutationStage, ValidationStage {
    private final ScriptHost host;
    private final List<RuleRuntime> rules;

    ScriptStage(ScriptHost host, List<RuleRuntime> rules) {
        this.host = host;
        this.rules = rules;
    }

    @Override
    public RuleFamily family() {
        return Scripts.FAMILY;
    }

    @Override
    public int ruleCount() {
        return rules.size();
    }

    @Override
    public JsonObject mutate(JsonObject object, StageContext context) {
        AdmissionRequest request = context.request();
        long budget = Math.min(context.deadlineNanos(), ownBudget());
        JsonObject current = object;
        for (RuleRuntime r : rules) {
            if (!r.isStarted() || !r.rule.has(Signatures.MUTATE) || !applies(r.rule, request, current)) {
                continue;
            }
            String error = null;
            JsonValue applied = JsonValue.EMPTY_JSON_ARRAY;
            try {
                spent(budget);
                Sandbox.Returned returned = r.call(Signatures.MUTATE, request.operation().name(), current,
                        request.oldObject(), deadline(budget));
                if (refused(returned.value())) {
                    context.rejections().add(rejection(r.rule, message(returned.value())));
                } else if (returned.value() instanceof JsonObject answer && answer.get("Result") != null
                        && answer.get("Result") != JsonValue.NULL) {
                    if (!(answer.get("Result") instanceof JsonObject result)) {
                        error = "Result is not an object but " + answer.get("Result").getValueType();
                    } else {
                        JsonObject next = (JsonObject) Reconcile.keep(current, result);
                        applied = Engine.diff(current, next);
                        current = next;
                    }
                }
            } catch (Calls.Failed | RuleRuntime.ScriptError e) {
                error = "jsa_mutate " + e.getMessage();
            }
            context.outcomes().add(new RuleOutcome(Scripts.FAMILY, r.rule.id(), 0, true, -1, null,
                    applied.asJsonArray(), error));
        }
        return current;
    }

    @Override
    public void validate(JsonObject object, StageContext context) {
        AdmissionRequest request = context.request();
        long budget = Math.min(context.deadlineNanos(), ownBudget());
        for (RuleRuntime r : rules) {
            if (!r.isStarted() || !r.rule.has(Signatures.VALIDATE) || !applies(r.rule, request, object)) {
                continue;
            }
            try {
                spent(budget);
                Sandbox.Returned returned = r.call(Signatures.VALIDATE, request.operation().name(), object,
                        request.oldObject(), deadline(budget));
                if (refused(returned.value())) {
                    context.rejections().add(rejection(r.rule, message(returned.value())));
                    context.outcomes().add(new RuleOutcome(Scripts.FAMILY, r.rule.id(), 0, true, -1, null,
                            JsonValue.EMPTY_JSON_ARRAY, null));
                }
            } catch (Calls.Failed | RuleRuntime.ScriptError e) {
                // Fails closed: a validation that cannot run must not let the object through.
                String why = "jsa_validate " + e.getMessage();
                context.rejections().add(rejection(r.rule, why));
                context.outcomes().add(new RuleOutcome(Scripts.FAMILY, r.rule.id(), 0, true, -1, null,
                        JsonValue.EMPTY_JSON_ARRAY, why));
            }
        }
    }

    /** The scripts' own share of a request: {@link ScriptLimits#requestBudget()} from now. */
    private long ownBudget() {
        return System.nanoTime() + host.limits().requestBudget().toNanos();
    }

    /** Fails a rule not yet run once the request's budget is spent: the webhook must answer in time. */
    private static void spent(long budget) throws Calls.Failed {
        if (System.nanoTime() - budget >= 0) {
            throw new Calls.Failed("not run: the request budget is spent");
        }
    }

    private long deadline(long budget) {
        return Math.min(host.deadline(), budget);
    }

    /** Refused only when the value is an object whose {@code Allowed} is exactly {@code false}. */
    private static boolean refused(JsonValue value) {
        return value instanceof JsonObject o && o.get("Allowed") == JsonValue.FALSE;
    }

    private static String message(JsonValue value) {
        return ((JsonObject) value).get("Message") instanceof JsonString m ? m.getString() : null;
    }

    /** Named {@code Kind/namespace/name} in the webhook's message, as outcomes name the rule. */
    private static Rejection rejection(ScriptRule rule, String message) {
        String prefix = rule.namespace() == null ? rule.kind() : rule.kind() + "/" + rule.namespace();
        return new Rejection(prefix, rule.name(), message, Scripts.FAMILY, rule.id());
    }

    /** A namespaced rule applies in its namespace; {@code kinds}, when given, name the object's resource. */
    static boolean applies(ScriptRule rule, AdmissionRequest request, JsonObject object) {
        if (!rule.clusterWide() && !rule.namespace().equals(request.namespace())) {
            return false;
        }
        if (rule.kinds().isEmpty()) {
            return true;
        }
        String kind = object.get("kind") instanceof JsonString k ? k.getString() : "";
        return rule.kinds().contains(resource(kind)) || rule.kinds().contains(kind)
                || rule.kinds().contains(kind.toLowerCase(Locale.ROOT));
    }

    /** The resource of a kind as Kubernetes guesses it (UnsafeGuessKindToResource): Pod pods, Ingress ingresses. */
    static String resource(String kind) {
        String lower = kind.toLowerCase(Locale.ROOT);
        if (lower.isEmpty()) {
            return lower;
        }
        if (lower.endsWith("s")) {
            return lower + "es";
        }
        if (lower.endsWith("y")) {
            return lower.substring(0, lower.length() - 1) + "ies";
        }
        return lower + "s";
    }
}

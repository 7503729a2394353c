package io.remold.rules.impact;

import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.Rejection;
import io.remold.engine.RuleOutcome;
import jakarta.json.JsonArray;
import jakarta.json.JsonValue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Predicate;

/**
 * What each rule did in one decision ({@code mutate}'s or {@code validate}'s), as verdicts: a rule that failed
 * {@link Verdict.Fails} (a failed Reject rule, which refuses closed, too), one that refused {@link Verdict.Refuses},
 * one that changed the object {@link Verdict.Changes} (what its operations change), one that matched and did neither
 * {@link Verdict.Unchanged}. A rule that did not match gives none, nor does a script whose {@code jsa_validate}
 * admitted (it reports nothing), nor the engine's whole-patch outcome.
 */
public final class Verdicts {
    private Verdicts() {
    }

    /**
     * The verdicts of the rules {@code included} takes (by outcome name), in the order the engine ran them; a
     * change as the RFC 6902 patch its operations make of {@code before}, the object the decision began with
     * ({@link Engine#effect}).
     */
    public static List<RuleVerdict> of(Decision decision, JsonValue before, Predicate<String> included) {
        var refusals = new LinkedHashMap<String, Rejection>();
        for (Rejection rejection : decision.rejections()) {
            if (included.test(rejection.rule())) {
                refusals.putIfAbsent(rejection.rule(), rejection);
            }
        }
        var verdicts = new LinkedHashMap<String, RuleVerdict>();
        for (RuleOutcome outcome : decision.outcomes()) {
            if (!outcome.matched() || Engine.PATCH_OUTCOME.equals(outcome.rule())
                    || !included.test(outcome.rule())) {
                continue;
            }
            Rejection refusal = refusals.remove(outcome.rule());
            verdicts.putIfAbsent(outcome.rule(), new RuleVerdict(outcome.family(), outcome.rule(),
                    verdict(outcome, refusal, before)));
        }
        // A refusal without an outcome of its own (a stage may report only the rejection).
        refusals.values().forEach(r -> verdicts.putIfAbsent(r.rule(), new RuleVerdict(r.family(), r.rule(),
                new Verdict.Refuses(message(r)))));
        return List.copyOf(verdicts.values());
    }

    private static Verdict verdict(RuleOutcome outcome, Rejection refusal, JsonValue before) {
        if (outcome.error() != null) {
            return new Verdict.Fails(outcome.error());
        }
        if (refusal != null) {
            return new Verdict.Refuses(message(refusal));
        }
        JsonArray patch = outcome.applied().isEmpty() ? outcome.applied() : Engine.effect(before, outcome.applied());
        return patch.isEmpty() ? Verdict.UNCHANGED : new Verdict.Changes(patch);
    }

    /** The refusal's message; empty for a rule that refuses without one. */
    private static String message(Rejection rejection) {
        return rejection.message() == null ? "" : rejection.message();
    }
}

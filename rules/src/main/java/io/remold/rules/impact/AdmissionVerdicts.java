package io.remold.rules.impact;

import io.remold.api.RuleMode;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.rules.Snapshot;

import java.util.List;

/**
 * The verdicts of a snapshot's rules that are not enforced on one admission request, as the server records them
 * after its answer and {@code eval} prints them: the same function for both, so that they agree.
 */
public final class AdmissionVerdicts {
    private AdmissionVerdicts() {
    }

    /**
     * The Warn rules' verdicts in the enforcing engine's {@code decision} of {@code request}: a change as what the
     * rule's operations make of the request's object (not of the result, which already holds them).
     */
    public static List<RuleVerdict> warned(Snapshot snapshot, AdmissionRequest request, Decision decision) {
        return Verdicts.of(decision, request.object(), rule -> snapshot.mode(rule) == RuleMode.WARN);
    }

    /**
     * The Shadow rules' verdicts on a mutating request: evaluated on the object the enforced rules made ({@code
     * enforced}: their decision; null when none is enforced), which is what would be stored.
     */
    public static List<RuleVerdict> mutate(Snapshot snapshot, AdmissionRequest request, Decision enforced,
                                           long deadlineNanos) {
        AdmissionRequest admitted = enforced == null || enforced.patch().isEmpty() ? request
                : request.withObject(enforced.result());
        return snapshot.shadow().map(shadow -> Verdicts.of(shadow.engine().mutate(admitted, deadlineNanos),
                admitted.object(), rule -> true)).orElse(List.of());
    }

    /** The Shadow rules' verdicts on a validating request (its object is final: every mutation is done). */
    public static List<RuleVerdict> validate(Snapshot snapshot, AdmissionRequest request, long deadlineNanos) {
        return snapshot.shadow().map(shadow -> Verdicts.of(shadow.engine().validate(request, deadlineNanos),
                request.object(), rule -> true)).orElse(List.of());
    }
}

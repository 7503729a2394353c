package io.remold.kinitiras.cue;

import io.remold.cue.CueEvaluator;

import java.time.Duration;

/**
 * How a policy's CUE runs: the evaluator, the time one evaluation may take, and who its worker time is charged to
 * (the policy's namespace, or the administrator for a cluster-wide policy). Its {@code processing.http} tasks go
 * through the request's {@link io.remold.kinitiras.ValueSources}, as {@code http} references.
 */
public record CueSettings(CueEvaluator evaluator, Duration timeout, CueEvaluator.Owner owner) {
    /** The same, charged to {@code owner}. */
    public CueSettings chargedTo(CueEvaluator.Owner owner) {
        return new CueSettings(evaluator, timeout, owner);
    }
}

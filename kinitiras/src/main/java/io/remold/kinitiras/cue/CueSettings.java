package io.remold.kinitiras.cue;

import io.remold.cue.CueEvaluator;

import java.time.Duration;

/**
 * How a policy's CUE runs: the evaluator and the time one evaluation may take. Its {@code processing.http} tasks go
 * through the request's {@link io.remold.kinitiras.ValueSources}, as {@code http} references.
 */
public record CueSettings(CueEvaluator evaluator, Duration timeout) {
}

/**
 * The CUE forms of kinitiras's policies ({@code cue}, {@code renderedCue}) on an {@link io.remold.cue.CueEvaluator},
 * with kinitiras's parameters and outputs (docs/compatibility.md, "kinitiras policies: CUE").
 */
package io.remold.kinitiras.cue;

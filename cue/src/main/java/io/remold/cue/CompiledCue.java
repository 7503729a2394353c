package io.remold.cue;

/** A policy's CUE, parsed and checked once ({@link CueEvaluator#compile}); immutable. */
public interface CompiledCue {
    /** The CUE text as written. */
    String source();
}

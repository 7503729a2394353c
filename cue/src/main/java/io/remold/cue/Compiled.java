package io.remold.cue;

/**
 * A policy parsed by a worker: workers keep it under {@code id}, and get {@code source} again when they lack it. Its
 * evaluations are charged to {@code owner} ({@link FairShare}).
 */
record Compiled(CueWorkers evaluator, long id, String source, CueEvaluator.Owner owner) implements CompiledCue {
    @Override
    public String toString() {
        return "CUE policy #" + id;
    }
}

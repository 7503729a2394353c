package io.remold.cue;

import java.util.concurrent.Semaphore;

/**
 * A policy parsed by a worker: workers keep it under {@code id}, and get {@code source} again when they lack it.
 * {@code workers} are the workers its evaluations may hold at once.
 */
record Compiled(CueWorkers owner, long id, String source, Semaphore workers) implements CompiledCue {
    @Override
    public String toString() {
        return "CUE policy #" + id;
    }
}

package io.remold.cue;

import jakarta.json.JsonValue;

import java.util.List;

/**
 * CUE evaluated by cuelang.org/go itself, the way kinitiras does: the policy's text unified with each parameter (a
 * file {@code name: JSON}), validated, and the value at an output path returned. Thread-safe; compile once, evaluate
 * many. Nothing runs (no process, no thread) until the first {@link #compile}.
 */
public interface CueEvaluator extends AutoCloseable {
    /** Parses and checks a policy's CUE once; the error names CUE's own message and position. */
    CompiledCue compile(String source) throws CueException;

    /**
     * The value at {@code outputPath} once {@code cue} is unified with the parameters, as JSON; the evaluation stops
     * with an exception at {@code deadlineNanos} ({@link System#nanoTime()}) or at the memory bound, failing this
     * call alone. {@code http} answers the policy's {@code processing.http} tasks.
     */
    JsonValue evaluate(CompiledCue cue, List<CueParameter> parameters, String outputPath, long deadlineNanos,
                       HttpTasks http) throws CueException;

    @Override
    void close();

    /** One parameter unified with the policy, as kinitiras passes {@code object}, {@code oldObject}, ... */
    record CueParameter(String name, JsonValue value) {
    }

    /** Answers a policy's {@code processing.http} task (its request object as written) with the response. */
    @FunctionalInterface
    interface HttpTasks {
        HttpTasks REFUSED = request -> {
            throw new CueException("http tasks are not allowed here");
        };

        JsonValue call(jakarta.json.JsonObject request) throws CueException;
    }
}

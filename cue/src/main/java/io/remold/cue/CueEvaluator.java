package io.remold.cue;

import jakarta.json.JsonValue;

import java.util.List;

/**
 * CUE evaluated by cuelang.org/go itself, the way kinitiras does: the policy's text unified with each parameter (a
 * file {@code name: JSON}), validated, and the value at an output path returned. Thread-safe; compile once, evaluate
 * many. Nothing runs (no process, no thread) until the first {@link #compile}.
 */
public interface CueEvaluator extends AutoCloseable {
    /**
     * Parses and checks a policy's CUE once; the error names CUE's own message and position. The worker time of this
     * compile and of every evaluation of the policy is charged to {@code owner}.
     */
    CompiledCue compile(String source, Owner owner) throws CueException;

    /**
     * The value at {@code outputPath} once {@code cue} is unified with the parameters, as JSON; the evaluation stops
     * with an exception at {@code deadlineNanos} ({@link System#nanoTime()}) or at the memory bound, failing this
     * call alone. {@code http} answers the policy's {@code processing.http} tasks.
     */
    JsonValue evaluate(CompiledCue cue, List<CueParameter> parameters, String outputPath, long deadlineNanos,
                       HttpTasks http) throws CueException;

    @Override
    void close();

    /**
     * Who a policy's worker time is charged to, so that no tenant takes more than its share of the workers: the
     * administrator (cluster-wide policies) or the tenant of one namespace (its namespaced policies).
     */
    sealed interface Owner {
        Owner ADMINISTRATOR = new Administrator();

        /** The owner of a policy of {@code namespace}, or the administrator's for {@code null} (cluster-wide). */
        static Owner of(String namespace) {
            return namespace == null ? ADMINISTRATOR : new Tenant(namespace);
        }

        /** The cluster administrator: its policies run on every namespace's requests. */
        record Administrator() implements Owner {
            @Override
            public String toString() {
                return "the administrator";
            }
        }

        /** A namespace's administrator: its policies run on its own namespace's requests. */
        record Tenant(String namespace) implements Owner {
            public Tenant {
                if (namespace == null || namespace.isEmpty()) {
                    throw new IllegalArgumentException("a tenant is a namespace, not " + namespace);
                }
            }

            @Override
            public String toString() {
                return "namespace " + namespace;
            }
        }
    }

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

package io.remold.cue;

import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link CueEvaluator} of cuelang.org/go in supervised worker processes ({@link CueLimits}). Nothing starts until
 * the first {@link #compile}: then the worker binary is extracted and a pool of worker slots made, each process
 * started when a call first needs it. A policy whose evaluation overran its deadline or killed its worker fails at
 * once for {@link CueLimits#quarantine()}, so it cannot take the workers from other policies call after call; and
 * the workers are shared between the policies' owners ({@link FairShare}), so that no tenant holds more than its share
 * and the administrator's cluster-wide policies always have a worker.
 */
public final class CueWorkers implements CueEvaluator {
    private static final JsonProvider JSON = JsonProvider.provider();
    private final CueLimits limits;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Quarantine> quarantined = new ConcurrentHashMap<>();
    private volatile WorkerPool pool;
    private boolean closed;

    public CueWorkers(CueLimits limits) {
        this.limits = limits;
    }

    @Override
    public CompiledCue compile(String source, Owner owner) throws CueException {
        Compiled compiled = new Compiled(this, ids.incrementAndGet(), source, Objects.requireNonNull(owner, "owner"));
        JsonObject request = JSON.createObjectBuilder().add("op", "compile").add("id", compiled.id())
                .add("source", source).build();
        long deadline = System.nanoTime() + limits.compileTimeout().toNanos();
        try (WorkerPool.Lease worker = pool().acquire(owner, compiled.id(), deadline)) {
            expectOk(worker.call(request, deadline, HttpTasks.REFUSED));
        } catch (WorkerProcess.Died e) {
            throw new CueException("cannot compile the CUE: " + e.getMessage());
        }
        return compiled;
    }

    @Override
    public JsonValue evaluate(CompiledCue cue, List<CueParameter> parameters, String outputPath, long deadlineNanos,
                              HttpTasks http) throws CueException {
        if (!(cue instanceof Compiled compiled) || compiled.evaluator() != this) {
            throw new IllegalArgumentException(cue + " was not compiled by this evaluator");
        }
        Quarantine quarantine = quarantined.get(compiled.id());
        if (quarantine != null) {
            if (System.nanoTime() - quarantine.endsNanos() < 0) {
                throw new CueException("quarantined for " + limits.quarantine().toSeconds() + " s after an evaluation"
                        + " that failed so: " + quarantine.reason());
            }
            quarantined.remove(compiled.id(), quarantine);
        }
        JsonArrayBuilder params = JSON.createArrayBuilder();
        for (CueParameter parameter : parameters) {
            params.add(JSON.createObjectBuilder().add("name", parameter.name()).add("value", parameter.value()));
        }
        JsonObject request = JSON.createObjectBuilder().add("op", "evaluate").add("id", compiled.id())
                .add("parameters", params).add("output", outputPath).build();
        try (WorkerPool.Lease worker = pool().acquire(compiled.owner(), compiled.id(), deadlineNanos)) {
            JsonObject answer = worker.call(request, deadlineNanos, http);
            if (answer.getBoolean("missing", false)) { // a new worker, or one that dropped it: parse it there
                answer = worker.call(JSON.createObjectBuilder(request).add("source", compiled.source()).build(),
                        deadlineNanos, http);
            }
            return value(answer);
        } catch (WorkerProcess.Died e) {
            long now = System.nanoTime();
            quarantined.values().removeIf(q -> now - q.endsNanos() >= 0); // policies never evaluated again
            quarantined.put(compiled.id(), new Quarantine(now + limits.quarantine().toNanos(), e.getMessage()));
            throw new CueException(e.getMessage());
        }
    }

    private static JsonValue value(JsonObject answer) throws CueException {
        if (answer.containsKey("error")) {
            throw new CueException(answer.getString("error"));
        }
        JsonValue value = answer.get("value");
        if (value == null) {
            throw new CueException("the CUE worker answered nothing");
        }
        return value;
    }

    private static void expectOk(JsonObject answer) throws CueException {
        if (answer.containsKey("error")) {
            throw new CueException(answer.getString("error"));
        }
    }

    private WorkerPool pool() throws CueException {
        WorkerPool current = pool;
        if (current == null) {
            synchronized (this) {
                if (closed) {
                    throw new CueException("the CUE evaluator is closed");
                }
                current = pool;
                if (current == null) {
                    try {
                        current = new WorkerPool(limits);
                    } catch (IllegalStateException | UncheckedIOException e) { // no worker binary for this platform
                        throw new CueException("CUE cannot run here: " + e.getMessage(), e);
                    }
                    pool = current;
                }
            }
        }
        return current;
    }

    boolean running() {
        return pool != null;
    }

    /** The evaluations waiting for a worker now. */
    int waiting() {
        WorkerPool current = pool;
        return current == null ? 0 : current.waiting();
    }

    /** The worker processes alive now. */
    List<ProcessHandle> workers() {
        WorkerPool current = pool;
        return current == null ? List.of() : current.processes();
    }

    /** Stops every worker; calls after it fail. */
    @Override
    public synchronized void close() {
        closed = true;
        if (pool != null) {
            pool.close();
        }
    }

    private record Quarantine(long endsNanos, String reason) {
    }
}

package io.remold.scripting;

import jakarta.json.JsonValue;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A loaded script rule: its state (JSON text, replaced as a whole by each synchronized call, so a call that fails
 * leaves it as it was), the lock that {@code sync} takes, and idle sandboxes with the script loaded. A sandbox is
 * reused by later calls of this rule only (never another rule's), and dropped after a failure, once it has served
 * {@value #CALLS_PER_SANDBOX} calls or allocated {@link #SANDBOX_LIFE_BYTES} in its life, or when the host keeps
 * enough idle ones, so what a script keeps in globals stays small and short-lived. A top level that failed is not
 * run again; a namespaced rule whose call overran its deadline or memory bound fails at once for {@link #QUARANTINE}.
 */
final class RuleRuntime {
    private static final Logger LOG = Logger.getLogger(Scripts.class.getName());
    static final String[] FUNCTIONS = {Signatures.MUTATE, Signatures.VALIDATE, Signatures.INIT, Signatures.CREATED,
            Signatures.UPDATED, Signatures.DELETED};
    private static final int CALLS_PER_SANDBOX = 1000;
    private static final int IDLE_SANDBOXES = 4;
    /** A sandbox that allocated more in its life (loading included) is closed, not kept: it may hold all of it. */
    static final long SANDBOX_LIFE_BYTES = 8L << 20;
    /** How long a namespaced rule whose call overran fails at once. */
    static final java.time.Duration QUARANTINE = java.time.Duration.ofSeconds(30);
    /** Log lines one call may write, and their length: a script must not flood the server's log. */
    private static final int LOG_LINES_PER_CALL = 20;
    private static final int LOG_LINE_CHARS = 1000;

    final ScriptRule rule;
    private final Source source;
    private final Calls calls;
    private final ScriptLimits limits;
    private final ConcurrentLinkedDeque<Pooled> idle = new ConcurrentLinkedDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    /** By managed function the script declares. */
    private final Map<String, Shape> shapes = new HashMap<>();
    private volatile String state = "{}";
    /** Why the script's top level failed: it is not run again (in a new sandbox) for this rule. */
    private volatile String topLevelFailed;
    private volatile long quarantineEnds = System.nanoTime();
    private volatile String quarantineReason;
    /** Set when the rule left the rule set: a call still running then closes its sandbox instead of pooling it. */
    private volatile boolean closed;
    /** The objects whose creation the script was told of (uid, else namespace/name): events arrive more than once. */
    final Set<String> known = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Set once the rule has started (loaded, jsa_init, the existing objects told): it joins its stage then. */
    private volatile boolean started;

    /**
     * What a managed function takes, worked out once: its index in {@link #FUNCTIONS}, its parameters as the
     * invoker splits them, and which values it names (only those are serialised for a call).
     */
    private record Shape(int index, String params, boolean sync, boolean state, boolean obj, boolean old) {
        static Shape of(String function, List<String> params) {
            return new Shape(indexOf(function), String.join(",", params),
                    params.contains("sync") || function.equals(Signatures.INIT), params.contains("state"),
                    params.contains("obj"), params.contains("old"));
        }
    }

    private static final class Pooled {
        Sandbox sandbox;
        int calls;
        /** Bytes allocated by loading the script and by the calls: a bound on what its globals hold. */
        long allocated;
        volatile int logLines;
    }

    RuleRuntime(ScriptRule rule, Calls calls, ScriptLimits limits) {
        this.rule = rule;
        this.source = Source.newBuilder(Sandbox.LANGUAGE, rule.js(), rule.id() + ".js").cached(true).buildLiteral();
        this.calls = calls;
        this.limits = limits;
        rule.functions().forEach((function, params) -> shapes.put(function, Shape.of(function, params)));
    }

    String state() {
        return state;
    }

    /** Lets the rule take part in its stage. */
    void started() {
        started = true;
    }

    /** Whether the rule has started; until then its stage skips it, as a rule not loaded yet. */
    boolean isStarted() {
        return started;
    }

    /** Replaces the state (eval's {@code --state}). */
    void seed(String json) {
        state = json;
    }

    /**
     * Calls {@code function} if the script has it (null if not): parameters by name, {@code state} writable when the
     * function names {@code sync} (or always, for jsa_init), under this rule's lock. Throws {@link Calls.Failed} or
     * {@link ScriptError} with why.
     */
    Sandbox.Returned call(String function, String op, JsonValue obj, JsonValue old, long deadlineNanos)
            throws Calls.Failed, ScriptError {
        Shape shape = shapes.get(function);
        if (shape == null) {
            return null;
        }
        boolean sync = shape.sync();
        if (sync) {
            try {
                if (!lock.tryLock(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    throw new Calls.Failed("waited past its deadline for the state's lock (sync)");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Calls.Failed("interrupted");
            }
        }
        try {
            String stateText = shape.state() ? state : null;
            Sandbox.Returned out = run(shape.index(), shape.params(), op, shape.obj() ? obj : null,
                    shape.old() ? old : null, stateText, sync, deadlineNanos);
            if (sync && shape.state() && out.state() != null) {
                state = out.state().toString();
            }
            return out;
        } finally {
            if (sync) {
                lock.unlock();
            }
        }
    }

    /**
     * Loads the script into a sandbox for the calls to come, so the first request does not pay for it (and a
     * script whose top level fails or passes a bound is reported at once).
     */
    void warm(long deadlineNanos) throws Calls.Failed, ScriptError {
        run(-1, "", null, null, null, null, false, deadlineNanos);
    }

    private Sandbox.Returned run(int index, String params, String op, JsonValue obj, JsonValue old,
                                 String stateText, boolean writable, long deadlineNanos) throws Calls.Failed, ScriptError {
        String broken = topLevelFailed;
        if (broken != null) {
            throw new ScriptError("its top level failed, so the script is not run again until the rule changes: "
                    + broken);
        }
        long now = System.nanoTime();
        if (now - quarantineEnds < 0) {
            throw new Calls.Failed("quarantined for " + QUARANTINE.toSeconds() + " s after a call " + quarantineReason);
        }
        try {
            return calls.run(rule.clusterWide() ? null : rule.namespace(), deadlineNanos,
                    call -> runIn(call, index, params, op, obj, old, stateText, writable));
        } catch (Calls.Failed e) {
            if (e.overran() && !rule.clusterWide()) {
                // A tenant's rule that overran once fails fast for a while: it cannot hold threads call after call.
                quarantineReason = e.getMessage();
                quarantineEnds = System.nanoTime() + QUARANTINE.toNanos();
            }
            throw e;
        } catch (ExecutionException e) {
            throw ScriptError.of(e.getCause());
        }
    }

    /**
     * One call on the script thread: an idle sandbox or a new one, disposed of here too (the caller may have stopped
     * waiting). What it allocates from loading on counts towards its life's bound.
     */
    private Sandbox.Returned runIn(Calls.Running call, int index, String params, String op, JsonValue obj,
                                   JsonValue old, String stateText, boolean writable) throws ScriptError {
        Pooled p = idle.pollFirst();
        boolean ok = false;
        try {
            if (p != null) {
                calls.leftIdle(p.allocated);
                call.watch(p.sandbox);
            } else {
                p = new Pooled();
                Pooled self = p;
                p.sandbox = new Sandbox(limits, (level, text) -> log(self, level, text));
                call.watch(p.sandbox);
                long before = Calls.allocatedByThisThread();
                try {
                    p.sandbox.load(source, FUNCTIONS);
                } catch (RuntimeException e) {
                    // Out of time within a request may be the request's budget; at start, it had the whole budget.
                    if (index < 0 || !call.pastDeadline()) {
                        topLevelFailed = call.exceeded() != null ? call.exceeded() : ScriptError.of(e).getMessage();
                    }
                    throw e;
                }
                p.allocated += Calls.allocatedByThisThread() - before;
            }
            Sandbox.Returned out = null;
            if (index >= 0) {
                long before = Calls.allocatedByThisThread();
                p.logLines = 0;
                out = p.sandbox.invoke(p.sandbox.function(index), params, op, obj, old, stateText, writable);
                p.allocated += Calls.allocatedByThisThread() - before;
            }
            ok = true;
            return out;
        } finally {
            if (p != null && p.sandbox != null) {
                if (ok && !closed && ++p.calls < CALLS_PER_SANDBOX && p.allocated <= SANDBOX_LIFE_BYTES
                        && idle.size() < IDLE_SANDBOXES && calls.keepIdle(p.allocated)) {
                    idle.addFirst(p);
                    if (closed) {
                        closeIdle(); // closed meanwhile: close() may have emptied the pool before this was added
                    }
                } else {
                    p.sandbox.close();
                }
            }
        }
    }

    private void log(Pooled pooled, String level, String text) {
        if (pooled.logLines++ >= LOG_LINES_PER_CALL) {
            return;
        }
        String line = text.length() > LOG_LINE_CHARS ? text.substring(0, LOG_LINE_CHARS) + "..." : text;
        LOG.log("debug".equals(level) ? Level.FINE : Level.INFO, rule.id() + ": " + line);
    }

    private static int indexOf(String function) {
        for (int i = 0; i < FUNCTIONS.length; i++) {
            if (FUNCTIONS[i].equals(function)) {
                return i;
            }
        }
        throw new IllegalArgumentException(function);
    }

    /**
     * The rule left the rule set: closes the idle sandboxes, and those of calls still running (the previous stage
     * may still serve requests) once they end.
     */
    void close() {
        closed = true;
        closeIdle();
    }

    /** How many sandboxes wait for a call (for tests). */
    int idleSandboxes() {
        return idle.size();
    }

    private void closeIdle() {
        Pooled p;
        while ((p = idle.pollFirst()) != null) {
            calls.leftIdle(p.allocated);
            p.sandbox.close();
        }
    }

    /** A JavaScript error (thrown by the script, or a syntax error at load), with the script's position. */
    static final class ScriptError extends Exception {
        /** GraalJS's RangeErrors for a size over the sandbox's bounds. */
        private static final java.util.regex.Pattern SIZE_ERRORS = java.util.regex.Pattern.compile(
                "Array buffer allocation failed|Invalid typed array length|Invalid string length");

        ScriptError(String message) {
            super(message, null, false, false);
        }

        static ScriptError of(Throwable t) {
            if (t instanceof ScriptError e) {
                return e;
            }
            if (t instanceof PolyglotException p) {
                String where = p.getSourceLocation() == null ? ""
                        : " (line " + p.getSourceLocation().getStartLine() + ")";
                if (p.isResourceExhausted() || p.isCancelled()) {
                    return new ScriptError("stopped: " + p.getMessage());
                }
                String bound = p.getMessage() != null && SIZE_ERRORS.matcher(p.getMessage()).find()
                        ? " (the sandbox's bounds: " + (Sandbox.MAX_BUFFER_BYTES >> 20) + " MiB per ArrayBuffer or"
                        + " typed array, " + (Sandbox.MAX_STRING_CHARS >> 20) + " Mi characters per string)" : "";
                return new ScriptError((p.isSyntaxError() ? "syntax error: " : "") + p.getMessage() + bound + where);
            }
            return new ScriptError(t.toString());
        }
    }
}

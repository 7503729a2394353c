package io.remold.scripting;

import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
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
 * reused by later calls of this rule only (never another rule's), and dropped after a failure or once it has served
 * {@value #CALLS_PER_SANDBOX} calls, so what a script keeps in globals stays small and short-lived.
 */
final class RuleRuntime {
    private static final Logger LOG = Logger.getLogger(Scripts.class.getName());
    static final String[] FUNCTIONS = {Signatures.MUTATE, Signatures.VALIDATE, Signatures.INIT, Signatures.CREATED,
            Signatures.UPDATED, Signatures.DELETED};
    private static final int CALLS_PER_SANDBOX = 1000;
    private static final int IDLE_SANDBOXES = 4;
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
    /** Set when the rule left the rule set: a call still running then closes its sandbox instead of pooling it. */
    private volatile boolean closed;
    /** The objects whose creation the script was told of (uid, else namespace/name): events arrive more than once. */
    final Set<String> known = new HashSet<>();

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

    /**
     * A JSON value's text, made when a call first needs it and reused by the calls after: one request's rules share
     * the object's. Not thread-safe (one request's or one event's calls run one after another).
     */
    static final class JsonText {
        static final JsonText NONE = new JsonText(null);
        private final JsonValue value;
        private String text;

        JsonText(JsonValue value) {
            this.value = value;
        }

        String text() {
            if (text == null && value != null) {
                text = value.toString();
            }
            return text;
        }
    }

    private static final class Pooled {
        Sandbox sandbox;
        int calls;
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

    /** Replaces the state (eval's {@code --state}). */
    void seed(String json) {
        state = json;
    }

    /** What a call returned: the function's value (JSON null for undefined). */
    record Returned(JsonValue value) {
    }

    /**
     * Calls {@code function} if the script has it (null if not): parameters by name, {@code state} writable when the
     * function names {@code sync} (or always, for jsa_init), under this rule's lock. Throws {@link Calls.Failed} or
     * {@link ScriptError} with why.
     */
    Returned call(String function, String op, JsonText obj, JsonText old, long deadlineNanos)
            throws Calls.Failed, ScriptError {
        Shape shape = shapes.get(function);
        if (shape == null) {
            return null;
        }
        boolean sync = shape.sync();
        String objText = shape.obj() ? obj.text() : null;
        String oldText = shape.old() ? old.text() : null;
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
            String out = run(shape.index(), shape.params(), op, objText, oldText, stateText, sync, deadlineNanos);
            JsonArray pair = (JsonArray) JsonTree.parse(out.getBytes(StandardCharsets.UTF_8));
            if (sync && shape.state() && pair.get(1) instanceof JsonObject next) {
                state = next.toString();
            }
            return new Returned(pair.get(0));
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

    private String run(int index, String params, String op, String obj, String old, String stateText,
                       boolean writable, long deadlineNanos) throws Calls.Failed, ScriptError {
        Pooled reused = idle.pollFirst();
        Pooled[] used = {reused};
        boolean ok = false;
        try {
            String out = calls.run(deadlineNanos, call -> {
                Pooled p = reused;
                if (p == null) {
                    p = new Pooled();
                    Pooled self = p;
                    p.sandbox = new Sandbox(limits, (level, text) -> log(self, level, text));
                    used[0] = p;
                    call.watch(p.sandbox);
                    p.sandbox.load(source, FUNCTIONS);
                } else {
                    call.watch(p.sandbox);
                }
                if (index < 0) {
                    return null;
                }
                p.logLines = 0;
                Value fn = p.sandbox.function(index);
                return p.sandbox.invoke(fn, params, op, obj, old, stateText, writable);
            });
            ok = true;
            return out;
        } catch (ExecutionException e) {
            throw ScriptError.of(e.getCause());
        } finally {
            Pooled p = used[0];
            if (p != null && p.sandbox != null) {
                if (ok && !closed && ++p.calls < CALLS_PER_SANDBOX && idle.size() < IDLE_SANDBOXES) {
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
            p.sandbox.close();
        }
    }

    /** A JavaScript error (thrown by the script, or a syntax error at load), with the script's position. */
    static final class ScriptError extends Exception {
        ScriptError(String message) {
            super(message, null, false, false);
        }

        static ScriptError of(Throwable t) {
            if (t instanceof PolyglotException p) {
                String where = p.getSourceLocation() == null ? ""
                        : " (line " + p.getSourceLocation().getStartLine() + ")";
                if (p.isResourceExhausted() || p.isCancelled()) {
                    return new ScriptError("stopped: " + p.getMessage());
                }
                return new ScriptError((p.isSyntaxError() ? "syntax error: " : "") + p.getMessage() + where);
            }
            return new ScriptError(t.toString());
        }
    }
}

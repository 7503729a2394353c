package io.remold.scripting;

import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.graalvm.polyglot.Context;
import org.graalvm.polyglot.Engine;
import org.graalvm.polyglot.EnvironmentAccess;
import org.graalvm.polyglot.HostAccess;
import org.graalvm.polyglot.PolyglotException;
import org.graalvm.polyglot.PolyglotAccess;
import org.graalvm.polyglot.ResourceLimits;
import org.graalvm.polyglot.Source;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.io.IOAccess;
import org.graalvm.polyglot.proxy.ProxyExecutable;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;

/**
 * A GraalJS context with one rule's script loaded, closed to the host: no Java classes or objects (only the log
 * callback, a proxy), no files, sockets, processes, threads, environment or other languages, no {@code Java} or
 * package globals, and the statement bound of {@link ScriptLimits}. Sizes are capped far below the heap (128 MiB in
 * the bundle), so that one allocation cannot end the process: an ArrayBuffer or typed array holds at most
 * {@value #MAX_BUFFER_BYTES} bytes, a string at most {@value #MAX_STRING_CHARS} characters; BigInt is off (one
 * {@code **} of it runs for seconds where no cancellation reaches). Not thread-safe: one call at a time, on the
 * thread that runs it.
 */
final class Sandbox implements AutoCloseable {
    static final String LANGUAGE = "js";
    /** Bytes of one ArrayBuffer (typed arrays and DataViews are views of one): 16 MiB. */
    static final int MAX_BUFFER_BYTES = 16 << 20;
    /** Characters of one string: 8 Mi (16 MiB), above the largest request body's text. */
    static final int MAX_STRING_CHARS = 8 << 20;
    /** Characters of the state's JSON text after a call (1 Mi): a larger state fails the call, the state unchanged. */
    static final int MAX_STATE_CHARS = 1 << 20;
    /** Characters of a call's returned value as JSON text (4 Mi): above a mutation of the largest body. */
    static final int MAX_RESULT_CHARS = 4 << 20;
    /**
     * Runs a managed function: parameters by name, the object as a view ({@link JsonView}), the rest as JSON text
     * (nothing else of the host is handed over).
     */
    private static final Source INVOKER = Source.newBuilder(LANGUAGE, """
            (function (log, isView, maxState, maxResult) {
              'use strict';
              delete globalThis.Java; // inert without host access, but not part of the sandbox's language
              const parse = JSON.parse, stringify = JSON.stringify, freeze = Object.freeze;
              const isFrozen = Object.isFrozen, names = Object.getOwnPropertyNames, str = String;
              function deepFreeze(v) {
                if (v !== null && typeof v === 'object' && !isFrozen(v)) {
                  freeze(v);
                  for (const k of names(v)) deepFreeze(v[k]);
                }
                return v;
              }
              function text(v) { return typeof v === 'string' ? v : (typeof v === 'object' && v !== null ? stringify(v) : str(v)); }
              function format(fmt, args) {
                let i = 0;
                return str(fmt).replace(/%([-+ #0-9.]*)([a-zA-Z%])/g, (m, flags, verb) => {
                  if (verb === '%') return '%';
                  if (i >= args.length) return '%!' + verb + '(MISSING)';
                  const a = args[i++];
                  switch (verb) {
                    case 'd': return str(Math.trunc(Number(a)));
                    case 'f': return Number(a).toFixed(flags.includes('.') ? Number(flags.split('.')[1]) || 0 : 6);
                    case 'q': return stringify(str(a));
                    case 't': return str(Boolean(a));
                    default: return text(a);
                  }
                });
              }
              globalThis.jsa_log = function (...s) { log('info', s.map(text).join(' ')); };
              globalThis.jsa_logf = function (fmt, ...s) { log('info', format(fmt, s)); };
              globalThis.jsa_debug = function (...s) { log('debug', s.map(text).join(' ')); };
              globalThis.jsa_debugf = function (fmt, ...s) { log('debug', format(fmt, s)); };
              const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
              // obj and old are views over the request's tree (JsonView): a Result that is one is built on the host,
              // sharing what the script left untouched; anything else crosses as JSON text.
              function invoke(fn, params, op, obj, old, stateText, writable) {
                const state = stateText == null ? undefined
                    : (writable ? parse(stateText) : deepFreeze(parse(stateText)));
                const values = {op: op, sync: writable, state: state, obj: obj, old: old};
                const args = params === '' ? [] : params.split(',').map(p => values[p]);
                const r = fn.apply(undefined, args);
                let shown = r === undefined ? null : r, result = null;
                if (r !== null && typeof r === 'object' && typeof r.toJSON !== 'function' && hasOwn(r, 'Result')
                    && isView(r.Result)) {
                  result = r.Result;
                  shown = {...r, Result: null};
                }
                const out = stringify(shown);
                if (out.length > maxResult) {
                  throw new RangeError('the returned value is ' + out.length
                      + ' characters of JSON, over the bound of ' + maxResult);
                }
                const next = writable && state !== undefined ? stringify(state) : 'null';
                if (next.length > maxState) {
                  throw new RangeError('the state grew to ' + next.length
                      + ' characters of JSON, over the bound of ' + maxState + '; it is unchanged');
                }
                return [out, result, next];
              }
              return [invoke, v => stringify(v)];
            })""", "remold-invoker.js").buildLiteral();

    private final Context context;
    private final Value invoker;
    /** {@code JSON.stringify} in this context: what a script stored into a view becomes JSON through it. */
    private final Value stringify;
    private Value[] functions;

    /** A context with the runtime's own functions and no script yet. */
    Sandbox(ScriptLimits limits, BiConsumer<String, String> log) {
        Context.Builder builder = Context.newBuilder(LANGUAGE)
                .engine(Engines.shared())
                .allowHostAccess(HostAccess.NONE)
                .allowHostClassLookup(name -> false)
                .allowIO(IOAccess.NONE)
                .allowCreateThread(false)
                .allowCreateProcess(false)
                .allowNativeAccess(false)
                .allowEnvironmentAccess(EnvironmentAccess.NONE)
                .allowPolyglotAccess(PolyglotAccess.NONE)
                .allowInnerContextOptions(false)
                .allowExperimentalOptions(true) // the size bounds below; scripts cannot set options themselves
                .out(OutputStream.nullOutputStream())
                .err(OutputStream.nullOutputStream())
                .option("js.console", "false")
                .option("js.print", "false")
                .option("js.load", "false")
                .option("js.graal-builtin", "false")
                .option("js.java-package-globals", "false")
                .option("js.bigint", "false")
                .option("js.max-typed-array-length", Integer.toString(MAX_BUFFER_BYTES))
                .option("js.string-length-limit", Integer.toString(MAX_STRING_CHARS))
                .resourceLimits(ResourceLimits.newBuilder().statementLimit(limits.statements(), null).build());
        this.context = builder.build();
        try {
            ProxyExecutable callback = args -> {
                log.accept(args[0].asString(), args[1].asString());
                return null;
            };
            ProxyExecutable isView = args -> args[0].isProxyObject()
                    && args[0].asProxyObject() instanceof JsonView.ObjectView;
            Value functions = context.eval(INVOKER).execute(callback, isView, MAX_STATE_CHARS, MAX_RESULT_CHARS);
            this.invoker = functions.getArrayElement(0);
            this.stringify = functions.getArrayElement(1);
        } catch (RuntimeException e) {
            context.close(true);
            throw e;
        }
    }

    /**
     * Runs {@code script}'s top level (within the limits, like a call); {@code names} are the managed functions to
     * look up, in the order {@link #function(int)} takes them.
     */
    void load(Source script, String[] names) {
        context.resetLimits();
        context.eval(script);
        Value bindings = context.getBindings(LANGUAGE);
        functions = new Value[names.length];
        for (int i = 0; i < names.length; i++) {
            Value fn = bindings.getMember(names[i]);
            functions[i] = fn != null && fn.canExecute() ? fn : null;
        }
    }

    /** The managed function at {@code index} of the names given, or null if the script did not define it. */
    Value function(int index) {
        return functions[index];
    }

    /** What a call returned (JSON null for undefined) and the state after it (null if not written). */
    record Returned(JsonValue value, JsonObject state) {
    }

    /** Calls {@code fn} with views of {@code obj} and {@code old} (either may be null) and the state's JSON text. */
    Returned invoke(Value fn, String params, String op, JsonValue obj, JsonValue old, String state, boolean writable)
            throws RuleRuntime.ScriptError {
        context.resetLimits();
        var scope = new JsonView.Scope();
        try {
            Value out = invoker.execute(fn, params, op, JsonView.of(obj, scope), JsonView.of(old, scope), state,
                    writable);
            String text = out.getArrayElement(0).asString();
            JsonValue value = parse(text);
            Value result = out.getArrayElement(1);
            if (!result.isNull()) {
                JsonView.ObjectView view = result.asProxyObject();
                value = JsonTree.with((JsonObject) value, "Result",
                        new JsonView.Materializer(stringify, scope, text.length(), MAX_RESULT_CHARS).json(view));
            }
            return new Returned(value, parse(out.getArrayElement(2).asString()) instanceof JsonObject o ? o : null);
        } finally {
            scope.close();
        }
    }

    private static JsonValue parse(String json) {
        return JsonTree.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    /** Stops a call running on another thread; the sandbox is unusable afterwards. */
    void cancel() {
        context.close(true);
    }

    @Override
    public void close() {
        context.close(true);
    }

    /**
     * Parses without running anything: a syntax error names its line and column (a BigInt literal is one, as
     * BigInt is off in the sandbox).
     */
    static void checkSyntax(String js, String field) {
        try (Context context = Context.newBuilder(LANGUAGE).engine(Engines.shared())
                .allowHostAccess(HostAccess.NONE).allowExperimentalOptions(true).option("js.bigint", "false")
                .build()) {
            context.parse(Source.create(LANGUAGE, js));
        } catch (PolyglotException e) {
            String where = e.getSourceLocation() == null ? "" : " at line " + e.getSourceLocation().getStartLine()
                    + ", column " + e.getSourceLocation().getStartColumn() + " of the script";
            throw new InvalidScriptException(field, "JavaScript syntax error" + where + ": " + e.getMessage());
        }
    }

    /** The shared engine, created when the first script is loaded: servers without scripts never load GraalJS. */
    static final class Engines {
        /** {@link Engine#getImplementationName()} without a Truffle compiler. */
        static final String INTERPRETED = "Interpreted";
        private static final Engine SHARED = Engine.newBuilder(LANGUAGE)
                .option("engine.WarnInterpreterOnly", "false")
                .out(OutputStream.nullOutputStream())
                .err(OutputStream.nullOutputStream())
                .build();

        static {
            java.util.logging.Logger.getLogger(Scripts.class.getName()).info(describe(SHARED.getImplementationName(),
                    java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
                            .contains("-XX:+EnableJVMCI")));
            // The engine's first script allocates about 8 MiB of its own: paid here, not counted against a rule's
            // sandbox (whose life's allocation bounds what it may keep).
            try (var first = new Sandbox(ScriptLimits.defaults(), (level, text) -> { })) {
                first.load(Source.create(LANGUAGE,
                        "function jsa_validate(obj) { return {Allowed: obj.kind == 'x'}; }"),
                        new String[] {Signatures.VALIDATE});
                first.invoke(first.function(0), "obj", "CREATE", JsonValue.EMPTY_JSON_OBJECT, null, null, false);
            } catch (RuleRuntime.ScriptError e) {
                throw new IllegalStateException(e);
            }
        }

        private Engines() {
        }

        /** The log line naming the runtime scripts run on, and why it is the interpreter when it is. */
        static String describe(String implementation, boolean jvmci) {
            if (!implementation.equals(INTERPRETED)) {
                return "script rules run on GraalJS with its optimizing runtime (" + implementation + ")";
            }
            return "script rules run on GraalJS in interpreter mode: " + (jvmci
                    ? "JVMCI is enabled but Graal's compiler is not on the upgrade module path"
                    : "the JVM was started without JVMCI") + " (REMOLD_SCRIPT_COMPILER=1, docs/scripts.md)";
        }

        static Engine shared() {
            return SHARED;
        }
    }
}

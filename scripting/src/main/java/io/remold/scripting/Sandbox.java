package io.remold.scripting;

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
import java.util.function.BiConsumer;

/**
 * A GraalJS context with one rule's script loaded, closed to the host: no Java classes or objects (only the log
 * callback, a proxy), no files, sockets, processes, threads, environment or other languages, and the statement
 * bound of {@link ScriptLimits}. Not thread-safe: one call at a time, on the thread that runs it.
 */
final class Sandbox implements AutoCloseable {
    static final String LANGUAGE = "js";
    /** Runs a managed function: parameters by name, JSON in and out (nothing of the host is handed over). */
    private static final Source INVOKER = Source.newBuilder(LANGUAGE, """
            (function (log) {
              'use strict';
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
              return function invoke(fn, params, op, objText, oldText, stateText, writable) {
                const state = stateText == null ? undefined
                    : (writable ? parse(stateText) : deepFreeze(parse(stateText)));
                const values = {
                  op: op, sync: writable, state: state,
                  obj: objText == null ? null : parse(objText),
                  old: oldText == null ? null : parse(oldText)
                };
                const args = params === '' ? [] : params.split(',').map(p => values[p]);
                const r = fn.apply(undefined, args);
                return stringify([r === undefined ? null : r, writable && state !== undefined ? state : null]);
              };
            })""", "remold-invoker.js").buildLiteral();

    private final Context context;
    private final Value invoker;
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
                .out(OutputStream.nullOutputStream())
                .err(OutputStream.nullOutputStream())
                .option("js.console", "false")
                .option("js.print", "false")
                .option("js.load", "false")
                .option("js.graal-builtin", "false")
                .resourceLimits(ResourceLimits.newBuilder().statementLimit(limits.statements(), null).build());
        this.context = builder.build();
        try {
            ProxyExecutable callback = args -> {
                log.accept(args[0].asString(), args[1].asString());
                return null;
            };
            this.invoker = context.eval(INVOKER).execute(callback);
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

    /** Calls {@code fn}; the JSON text of {@code [returned value, state after the call or null]}. */
    String invoke(Value fn, String params, String op, String obj, String old, String state, boolean writable) {
        context.resetLimits();
        return invoker.execute(fn, params, op, obj, old, state, writable).asString();
    }

    /** Stops a call running on another thread; the sandbox is unusable afterwards. */
    void cancel() {
        context.close(true);
    }

    @Override
    public void close() {
        context.close(true);
    }

    /** Parses without running anything: a syntax error names its line and column. */
    static void checkSyntax(String js, String field) {
        try (Context context = Context.newBuilder(LANGUAGE).engine(Engines.shared())
                .allowHostAccess(HostAccess.NONE).build()) {
            context.parse(Source.create(LANGUAGE, js));
        } catch (PolyglotException e) {
            String where = e.getSourceLocation() == null ? "" : " at line " + e.getSourceLocation().getStartLine()
                    + ", column " + e.getSourceLocation().getStartColumn() + " of the script";
            throw new InvalidScriptException(field, "JavaScript syntax error" + where + ": " + e.getMessage());
        }
    }

    /** The shared engine, created when the first script is loaded: servers without scripts never load GraalJS. */
    static final class Engines {
        private static final Engine SHARED = Engine.newBuilder(LANGUAGE)
                .option("engine.WarnInterpreterOnly", "false")
                .out(OutputStream.nullOutputStream())
                .err(OutputStream.nullOutputStream())
                .build();

        private Engines() {
        }

        static Engine shared() {
            return SHARED;
        }
    }
}

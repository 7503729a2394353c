package io.remold.scripting;

import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyArray;
import org.graalvm.polyglot.proxy.ProxyObject;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request's object as a script sees it, without a JSON text crossing: a proxy over the {@code jakarta.json} tree
 * that reads members on demand and keeps the script's changes beside the tree (copy on write), so that
 * {@link Materializer#json} gives the changed tree with every untouched part shared, which the engine's diff skips
 * by identity. A container is wrapped once (the same proxy on every read, as a parsed object would be); what the
 * script stores stays a guest value until the result is built, then goes through {@code JSON.stringify}, so only
 * JSON survives, as with the text crossing. Not thread-safe: one call's thread.
 */
abstract sealed class JsonView permits JsonView.ObjectView, JsonView.ArrayView {
    private static final JsonProvider JSON = JsonProvider.provider();
    /** Elements of an array a script may grow: past it no result could be returned within its bound anyway. */
    static final int MAX_ELEMENTS = Sandbox.MAX_RESULT_CHARS / 4;
    /** Levels the result may nest, as a request body's parser allows (views placed inside views). */
    static final int MAX_DEPTH = 1000;

    /**
     * The views of one call, released when it ends: a script that keeps {@code obj} in a global must not keep the
     * request's tree alive (it was never allocated by the sandbox, so its life's bound would not count it).
     */
    static final class Scope {
        private final List<JsonView> views = new ArrayList<>();
        private boolean closed;

        /** Ends the call: its views let go of the tree, and any later use of one fails. */
        void close() {
            closed = true;
            views.forEach(JsonView::release);
            views.clear();
        }
    }

    private final Scope scope;
    /** Where the view was made: a view found elsewhere in the result was moved (or aliased) by the script. */
    private final JsonView parent;
    private final Object slot;
    /** Whether the script wrote to this container (not only read its members). */
    boolean written;
    /** Set while the result is built from this view: meeting it again is a circular structure. */
    private boolean building;

    private JsonView(Scope scope, JsonView parent, Object slot) {
        this.scope = scope;
        this.parent = parent;
        this.slot = slot;
        scope.views.add(this);
    }

    /** Drops the tree and the script's changes. */
    abstract void release();

    /** Fails the use of a view after its call (kept in a global): the tree it showed is gone. */
    final void live() {
        if (scope.closed) {
            throw new IllegalStateException("the object of an earlier call is not kept after it: copy what a later"
                    + " call needs into the state");
        }
    }

    /** The view's base with the script's changes (building it within {@link #json}). */
    abstract JsonValue build(Materializer m) throws RuleRuntime.ScriptError;

    /** The tree with the script's changes; the base itself if none. */
    final JsonValue json(Materializer m) throws RuleRuntime.ScriptError {
        m.enter(this);
        building = true;
        try {
            return build(m);
        } finally {
            building = false;
            m.leave();
        }
    }

    /** Whether the view stands where it was made, in {@code holder} at {@code slot}. */
    final boolean at(JsonView holder, Object slot) {
        return parent == holder && this.slot.equals(slot);
    }

    /** The value a script gets for {@code value} in a call: a view for a container, a JavaScript primitive otherwise. */
    static Object of(JsonValue value, Scope scope) {
        return of(value, scope, null, null);
    }

    private static Object of(JsonValue value, Scope scope, JsonView parent, Object slot) {
        return switch (value) {
            case null -> null;
            case JsonObject o -> new ObjectView(o, scope, parent, slot);
            case JsonArray a -> new ArrayView(a, scope, parent, slot);
            case JsonString s -> s.getString();
            case JsonNumber n -> number(n);
            default -> value == JsonValue.TRUE ? Boolean.TRUE : value == JsonValue.FALSE ? Boolean.FALSE : null;
        };
    }

    /** A number as {@code JSON.parse} reads it: the nearest double ({@code -0} kept), as an int when it is one. */
    private static Object number(JsonNumber n) {
        double d = n.doubleValue();
        int i = (int) d;
        return i == d && (i != 0 || 1 / d > 0) ? (Object) i : (Object) d;
    }

    /** What the script stored, kept as a JSON value when that is certain, else the guest value itself. */
    private static Object stored(Value v) {
        if (v.isProxyObject() && v.asProxyObject() instanceof JsonView view) {
            return view;
        }
        if (v.isBoolean()) {
            return v.asBoolean() ? JsonValue.TRUE : JsonValue.FALSE;
        }
        if (v.isString()) {
            String s = v.asString();
            // A lone surrogate is escaped by JSON.stringify, not by the engine's printer: left to the former.
            return s.chars().anyMatch(c -> Character.isSurrogate((char) c)) ? v : JSON.createValue(s);
        }
        if (v.isNumber() && v.fitsInInt()) {
            return JSON.createValue(v.asInt());
        }
        return v; // objects, null, undefined, other numbers: JSON.stringify decides when the result is built
    }

    /**
     * A member or element for the script: a container read for the first time becomes a view of this one, kept in
     * its place by {@code keep}, so that every read gives the same view.
     */
    final Object guest(Object stored, Object slot, java.util.function.Consumer<Object> keep) {
        if (!(stored instanceof JsonValue json)) {
            return stored;
        }
        Object value = of(json, scope, this, slot);
        if (value instanceof JsonView) {
            keep.accept(value);
        }
        return value;
    }

    /** An object member's key order as JavaScript keeps it: array indices first, ascending, then insertion order. */
    private static String[] jsOrder(String[] keys) {
        int indices = 0;
        for (String k : keys) {
            if (isArrayIndex(k)) {
                indices++;
            }
        }
        if (indices == 0) {
            return keys;
        }
        String[] out = new String[keys.length];
        int i = 0;
        int rest = indices;
        for (String k : keys) {
            if (isArrayIndex(k)) {
                out[i++] = k;
            } else {
                out[rest++] = k;
            }
        }
        Arrays.sort(out, 0, indices, (a, b) -> Long.compare(Long.parseLong(a), Long.parseLong(b)));
        return out;
    }

    private static boolean isArrayIndex(String k) {
        if (k.isEmpty() || k.length() > 10 || (k.length() > 1 && k.charAt(0) == '0')) {
            return false;
        }
        for (int i = 0; i < k.length(); i++) {
            if (k.charAt(i) < '0' || k.charAt(i) > '9') {
                return false;
            }
        }
        return Long.parseLong(k) < 0xFFFF_FFFFL;
    }

    /** A JSON object; its members are copied into a map at the first write or container read. */
    static final class ObjectView extends JsonView implements ProxyObject {
        private JsonObject base;
        /** Members as JSON values (untouched), views or guest values; null until needed. */
        private LinkedHashMap<String, Object> members;

        ObjectView(JsonObject base, Scope scope, JsonView parent, Object slot) {
            super(scope, parent, slot);
            this.base = base;
        }

        @Override
        void release() {
            base = null;
            members = null;
        }


        private LinkedHashMap<String, Object> members() {
            if (members == null) {
                members = new LinkedHashMap<>(base);
            }
            return members;
        }

        @Override
        public Object getMember(String key) {
            live();
            return guest(members == null ? base.get(key) : members.get(key), key, view -> members().put(key, view));
        }

        @Override
        public Object getMemberKeys() {
            live();
            return ProxyArray.fromArray((Object[]) jsOrder(
                    (members == null ? base.keySet() : members.keySet()).toArray(String[]::new)));
        }

        @Override
        public boolean hasMember(String key) {
            live();
            return members == null ? base.containsKey(key) : members.containsKey(key);
        }

        @Override
        public void putMember(String key, Value value) {
            live();
            written = true;
            members().put(key, stored(value));
        }

        @Override
        public boolean removeMember(String key) {
            live();
            written = true;
            return members().remove(key) != null;
        }

        @Override
        JsonValue build(Materializer m) throws RuleRuntime.ScriptError {
            if (members == null) {
                return base;
            }
            JsonObject out = base;
            if (written) {
                for (String key : base.keySet()) {
                    if (!members.containsKey(key)) {
                        out = JsonTree.without(out, key);
                    }
                }
            }
            for (Map.Entry<String, Object> e : members.entrySet()) {
                Object stored = e.getValue();
                if (stored instanceof JsonValue same && same == base.get(e.getKey())) {
                    continue;
                }
                JsonValue value = m.value(stored, this, e.getKey());
                if (value == null) {
                    out = JsonTree.without(out, e.getKey()); // undefined, a function: JSON.stringify drops it
                } else if (value != base.get(e.getKey())) {
                    out = JsonTree.with(out, e.getKey(), value);
                }
            }
            return out;
        }
    }

    /** A JSON array; its elements are copied into a list at the first write or container read. */
    static final class ArrayView extends JsonView implements ProxyArray {
        private JsonArray base;
        private ArrayList<Object> items;

        ArrayView(JsonArray base, Scope scope, JsonView parent, Object slot) {
            super(scope, parent, slot);
            this.base = base;
        }

        @Override
        void release() {
            base = null;
            items = null;
        }


        private ArrayList<Object> items() {
            if (items == null) {
                items = new ArrayList<>(base);
            }
            return items;
        }

        @Override
        public Object get(long index) {
            live();
            if (index < 0 || index >= getSize()) {
                throw new ArrayIndexOutOfBoundsException((int) Math.min(index, Integer.MAX_VALUE));
            }
            int i = (int) index;
            return guest(items == null ? base.get(i) : items.get(i), i, view -> items().set(i, view));
        }

        @Override
        public void set(long index, Value value) {
            live();
            if (index < 0 || index >= MAX_ELEMENTS) {
                throw new ArrayIndexOutOfBoundsException("index " + index + " is past the sandbox's bound of "
                        + MAX_ELEMENTS + " elements per array");
            }
            written = true;
            List<Object> list = items();
            while (list.size() < index) {
                list.add(JsonValue.NULL); // a hole: JSON.stringify writes null
            }
            if (index == list.size()) {
                list.add(stored(value));
            } else {
                list.set((int) index, stored(value));
            }
        }

        @Override
        public boolean remove(long index) {
            live();
            if (index < 0 || index >= getSize()) {
                return false;
            }
            written = true;
            items().remove((int) index);
            return true;
        }

        @Override
        public long getSize() {
            live();
            return items == null ? base.size() : items.size();
        }

        @Override
        JsonValue build(Materializer m) throws RuleRuntime.ScriptError {
            if (items == null) {
                return base;
            }
            boolean same = !written;
            var out = new ArrayList<JsonValue>(items.size());
            for (int i = 0; i < items.size(); i++) {
                Object stored = items.get(i);
                JsonValue value = stored instanceof JsonValue json && (!written || i < base.size() && json == base.get(i))
                        ? json : m.value(stored, this, i);
                out.add(value == null ? JsonValue.NULL : value); // JSON.stringify writes undefined as null
                same &= i < base.size() && out.get(i) == base.get(i);
            }
            return same && out.size() == base.size() ? base : JsonTree.array(out);
        }
    }

    /**
     * Builds a call's result from its views, in the call's context (guest values go through {@code stringify}):
     * the text it adds (guest values, views moved elsewhere) counts against the returned value's bound, and a
     * view inside itself is the circular structure {@code JSON.stringify} refuses.
     */
    static final class Materializer {
        private final Value stringify;
        private final Scope scope;
        private final int maxChars;
        private int chars;
        private int depth;

        Materializer(Value stringify, Scope scope, int usedChars, int maxChars) {
            this.stringify = stringify;
            this.scope = scope;
            this.chars = usedChars;
            this.maxChars = maxChars;
        }

        JsonValue json(JsonView view) throws RuleRuntime.ScriptError {
            return view.json(this);
        }

        private void enter(JsonView view) throws RuleRuntime.ScriptError {
            if (view.building) {
                throw new RuleRuntime.ScriptError("TypeError: Converting circular structure to JSON");
            }
            if (++depth > MAX_DEPTH) {
                throw new RuleRuntime.ScriptError("the returned value nests deeper than " + MAX_DEPTH + " levels");
            }
        }

        private void leave() {
            depth--;
        }

        /**
         * A stored member or element as JSON; null for what JSON.stringify leaves out (undefined, a function). What
         * the request's tree had elsewhere (a view or value moved or aliased) goes through stringify too, which
         * writes its numbers as JavaScript does ({@code 1.0} as {@code 1}), as the text crossing did.
         */
        private JsonValue value(Object stored, JsonView holder, Object slot) throws RuleRuntime.ScriptError {
            if (stored instanceof JsonView view && view.at(holder, slot)) {
                return view.json(this);
            }
            if (stored instanceof JsonValue json && !(json instanceof JsonNumber) && !(json instanceof JsonObject)
                    && !(json instanceof JsonArray)) {
                count(json.toString().length()); // a string or literal the script wrote
                return json;
            }
            Value text = stringify.execute(stored instanceof JsonValue json ? of(json, scope) : stored);
            if (text.isNull()) {
                return null;
            }
            String s = text.asString();
            count(s.length());
            return JsonTree.parse(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }

        private void count(int added) throws RuleRuntime.ScriptError {
            chars += added;
            if (chars > maxChars) {
                throw new RuleRuntime.ScriptError("RangeError: the returned value is over " + maxChars
                        + " characters of JSON, the sandbox's bound");
            }
        }
    }
}

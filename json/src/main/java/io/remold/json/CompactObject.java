package io.remold.json;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * An immutable JSON object in two parallel arrays, keys in document order. Small objects (most of a Kubernetes
 * object) are searched linearly, which beats hashing their short keys; larger ones get an open-addressing index on
 * first lookup. A one-key change copies the two arrays, not a hash map.
 */
final class CompactObject extends ObjectView {
    /** Up to this many keys a linear scan is cheaper than an index. */
    private static final int LINEAR_LIMIT = 12;

    private final String[] keys;
    private final JsonValue[] values;
    /** Slot to index + 1, built on first lookup when the object is large; racy but idempotent. */
    private volatile int[] index;

    /** Takes ownership of the arrays; keys must be distinct. */
    CompactObject(String[] keys, JsonValue[] values) {
        this.keys = keys;
        this.values = values;
    }

    private CompactObject(String[] keys, JsonValue[] values, int[] index) {
        this.keys = keys;
        this.values = values;
        this.index = index;
    }

    /**
     * An object from parsed members that may repeat a key: the first one keeps its place and the last one's value,
     * as Parsson's reader does. Large objects get their index here, which finds the repeats too.
     */
    static CompactObject distinct(String[] keys, JsonValue[] values) {
        int kept = 0;
        int[] table = keys.length <= LINEAR_LIMIT ? null : new int[tableSize(keys.length)];
        for (int i = 0; i < keys.length; i++) {
            int at = table == null ? linearIndexOf(keys, kept, keys[i]) : insert(table, keys, kept, keys[i]);
            if (at >= 0) {
                values[at] = values[i];
                continue;
            }
            keys[kept] = keys[i];
            values[kept++] = values[i];
        }
        if (kept == keys.length) {
            return new CompactObject(keys, values, table);
        }
        return new CompactObject(Arrays.copyOf(keys, kept), Arrays.copyOf(values, kept));
    }

    private static int linearIndexOf(String[] keys, int count, String key) {
        for (int i = 0; i < count; i++) {
            if (keys[i].equals(key)) {
                return i;
            }
        }
        return -1;
    }

    /** The index of {@code key} among the first {@code count} keys; if absent, records it as key {@code count}. */
    private static int insert(int[] table, String[] keys, int count, String key) {
        int mask = table.length - 1;
        for (int slot = spread(key.hashCode()) & mask; ; slot = (slot + 1) & mask) {
            int at = table[slot] - 1;
            if (at < 0) {
                table[slot] = count + 1;
                return -1;
            }
            if (keys[at].equals(key)) {
                return at;
            }
        }
    }

    private static int tableSize(int keyCount) {
        return Integer.highestOneBit(keyCount * 2 - 1) << 1;
    }

    /** A copy of any jakarta.json object. */
    static CompactObject copyOf(JsonObject object) {
        if (object instanceof CompactObject compact) {
            return compact;
        }
        var keys = new String[object.size()];
        var values = new JsonValue[keys.length];
        int i = 0;
        for (Map.Entry<String, JsonValue> e : object.entrySet()) {
            keys[i] = e.getKey();
            values[i++] = e.getValue();
        }
        return new CompactObject(keys, values);
    }

    int indexOf(String key) {
        if (keys.length <= LINEAR_LIMIT) {
            return linearIndexOf(keys, keys.length, key);
        }
        int[] table = index;
        if (table == null) {
            table = buildIndex();
            index = table;
        }
        int mask = table.length - 1;
        for (int slot = spread(key.hashCode()) & mask; ; slot = (slot + 1) & mask) {
            int at = table[slot] - 1;
            if (at < 0) {
                return -1;
            }
            if (keys[at].equals(key)) {
                return at;
            }
        }
    }

    private int[] buildIndex() {
        var table = new int[tableSize(keys.length)];
        for (int i = 0; i < keys.length; i++) {
            insert(table, keys, i, keys[i]);
        }
        return table;
    }

    private static int spread(int hash) {
        return hash ^ (hash >>> 16);
    }

    /** This object with {@code key} set: replaced where it is, else appended. */
    CompactObject with(String key, JsonValue value) {
        int at = indexOf(key);
        if (at >= 0) {
            if (values[at] == value) {
                return this;
            }
            JsonValue[] changed = values.clone();
            changed[at] = value;
            return new CompactObject(keys, changed);
        }
        String[] k = Arrays.copyOf(keys, keys.length + 1);
        JsonValue[] v = Arrays.copyOf(values, values.length + 1);
        k[keys.length] = key;
        v[values.length] = value;
        return new CompactObject(k, v);
    }

    /** This object without {@code key}; itself when the key is absent. */
    CompactObject without(String key) {
        int at = indexOf(key);
        if (at < 0) {
            return this;
        }
        var k = new String[keys.length - 1];
        var v = new JsonValue[k.length];
        System.arraycopy(keys, 0, k, 0, at);
        System.arraycopy(values, 0, v, 0, at);
        System.arraycopy(keys, at + 1, k, at, k.length - at);
        System.arraycopy(values, at + 1, v, at, k.length - at);
        return new CompactObject(k, v);
    }

    /** True when both hold the same keys in the same order because one was edited from the other in place. */
    boolean sharesKeys(CompactObject other) {
        return keys == other.keys;
    }

    String keyAt(int i) {
        return keys[i];
    }

    JsonValue valueAt(int i) {
        return values[i];
    }

    @Override
    public JsonValue get(Object key) {
        if (!(key instanceof String name)) {
            return null;
        }
        int at = indexOf(name);
        return at < 0 ? null : values[at];
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof String name && indexOf(name) >= 0;
    }

    @Override
    public int size() {
        return keys.length;
    }

    @Override
    public boolean isEmpty() {
        return keys.length == 0;
    }

    /** Without the entry objects of {@link #entrySet()}: walks the two arrays. */
    @Override
    public void forEach(BiConsumer<? super String, ? super JsonValue> action) {
        for (int i = 0; i < keys.length; i++) {
            action.accept(keys[i], values[i]);
        }
    }

    @Override
    public Set<Map.Entry<String, JsonValue>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, JsonValue>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < keys.length;
                    }

                    @Override
                    public Map.Entry<String, JsonValue> next() {
                        if (next >= keys.length) {
                            throw new NoSuchElementException();
                        }
                        int at = next++;
                        return new SimpleImmutableEntry<>(keys[at], values[at]);
                    }
                };
            }

            @Override
            public int size() {
                return keys.length;
            }
        };
    }

    @Override
    public String toString() {
        return JsonText.write(this, JsonText.Escaping.PARSSON);
    }
}

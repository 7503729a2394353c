package io.remold.json;

import jakarta.json.JsonValue;

import java.util.Map;
import java.util.Set;

/**
 * An object whose syntax was checked but whose tree is built on first read: an UPDATE's {@code oldObject} is as
 * large as its {@code object} and most rules never look at it.
 */
final class DeferredObject extends ObjectView {
    private final byte[] in;
    private final int offset;
    private final int length;
    private volatile CompactObject tree;

    DeferredObject(byte[] in, int offset, int length) {
        this.in = in;
        this.offset = offset;
        this.length = length;
    }

    CompactObject tree() {
        CompactObject t = tree;
        if (t == null) {
            t = (CompactObject) TreeParser.parse(in, offset, length, Set.of());
            tree = t;
        }
        return t;
    }

    @Override
    public JsonValue get(Object key) {
        return tree().get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return tree().containsKey(key);
    }

    @Override
    public int size() {
        return tree().size();
    }

    @Override
    public Set<Map.Entry<String, JsonValue>> entrySet() {
        return tree().entrySet();
    }

    @Override
    public String toString() {
        return tree().toString();
    }
}

package io.remold.json;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;

/**
 * An object whose syntax was checked but whose tree is built on first read: an UPDATE's {@code oldObject} is as
 * large as its {@code object} and most rules never look at it.
 */
final class DeferredObject extends AbstractMap<String, JsonValue> implements JsonObject {
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
    public JsonArray getJsonArray(String name) {
        return tree().getJsonArray(name);
    }

    @Override
    public JsonObject getJsonObject(String name) {
        return tree().getJsonObject(name);
    }

    @Override
    public JsonNumber getJsonNumber(String name) {
        return tree().getJsonNumber(name);
    }

    @Override
    public JsonString getJsonString(String name) {
        return tree().getJsonString(name);
    }

    @Override
    public String getString(String name) {
        return tree().getString(name);
    }

    @Override
    public String getString(String name, String defaultValue) {
        return tree().getString(name, defaultValue);
    }

    @Override
    public int getInt(String name) {
        return tree().getInt(name);
    }

    @Override
    public int getInt(String name, int defaultValue) {
        return tree().getInt(name, defaultValue);
    }

    @Override
    public boolean getBoolean(String name) {
        return tree().getBoolean(name);
    }

    @Override
    public boolean getBoolean(String name, boolean defaultValue) {
        return tree().getBoolean(name, defaultValue);
    }

    @Override
    public boolean isNull(String name) {
        return tree().isNull(name);
    }

    @Override
    public ValueType getValueType() {
        return ValueType.OBJECT;
    }

    @Override
    public String toString() {
        return tree().toString();
    }
}

package io.remold.json;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.AbstractMap;

/** The typed getters of {@link JsonObject}, all in terms of {@link #get}: shared by compact and deferred objects. */
abstract sealed class ObjectView extends AbstractMap<String, JsonValue> implements JsonObject
        permits CompactObject, DeferredObject {

    @Override
    public JsonArray getJsonArray(String name) {
        return (JsonArray) get(name);
    }

    @Override
    public JsonObject getJsonObject(String name) {
        return (JsonObject) get(name);
    }

    @Override
    public JsonNumber getJsonNumber(String name) {
        return (JsonNumber) get(name);
    }

    @Override
    public JsonString getJsonString(String name) {
        return (JsonString) get(name);
    }

    @Override
    public String getString(String name) {
        return getJsonString(name).getString();
    }

    @Override
    public String getString(String name, String defaultValue) {
        return get(name) instanceof JsonString s ? s.getString() : defaultValue;
    }

    @Override
    public int getInt(String name) {
        return getJsonNumber(name).intValue();
    }

    @Override
    public int getInt(String name, int defaultValue) {
        return get(name) instanceof JsonNumber n ? n.intValue() : defaultValue;
    }

    @Override
    public boolean getBoolean(String name) {
        JsonValue value = get(name);
        if (value == null) {
            throw new NullPointerException("no key \"" + name + "\"");
        }
        if (value == JsonValue.TRUE) {
            return true;
        }
        if (value == JsonValue.FALSE) {
            return false;
        }
        throw new ClassCastException("\"" + name + "\" is a " + value.getValueType() + ", not a boolean");
    }

    @Override
    public boolean getBoolean(String name, boolean defaultValue) {
        JsonValue value = get(name);
        return value == JsonValue.TRUE || (value != JsonValue.FALSE && defaultValue);
    }

    @Override
    public boolean isNull(String name) {
        JsonValue value = get(name);
        if (value == null) {
            throw new NullPointerException("no key \"" + name + "\"");
        }
        return value.getValueType() == ValueType.NULL;
    }

    @Override
    public ValueType getValueType() {
        return ValueType.OBJECT;
    }
}

package io.remold.json;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/** An immutable JSON array over one exact-size array; a one-element change copies that array. */
final class CompactArray extends AbstractList<JsonValue> implements JsonArray, RandomAccess {
    private final JsonValue[] values;

    /** Takes ownership of the array. */
    CompactArray(JsonValue[] values) {
        this.values = values;
    }

    static CompactArray copyOf(JsonArray array) {
        return array instanceof CompactArray compact ? compact : new CompactArray(array.toArray(new JsonValue[0]));
    }

    CompactArray with(int position, JsonValue value) {
        if (values[position] == value) {
            return this;
        }
        JsonValue[] changed = values.clone();
        changed[position] = value;
        return new CompactArray(changed);
    }

    /** {@code value} inserted before {@code position}; at the size it is appended. */
    CompactArray inserted(int position, JsonValue value) {
        var changed = new JsonValue[values.length + 1];
        System.arraycopy(values, 0, changed, 0, position);
        changed[position] = value;
        System.arraycopy(values, position, changed, position + 1, values.length - position);
        return new CompactArray(changed);
    }

    CompactArray without(int position) {
        var changed = new JsonValue[values.length - 1];
        System.arraycopy(values, 0, changed, 0, position);
        System.arraycopy(values, position + 1, changed, position, changed.length - position);
        return new CompactArray(changed);
    }

    @Override
    public JsonValue get(int index) {
        return values[index];
    }

    @Override
    public int size() {
        return values.length;
    }

    @Override
    public JsonObject getJsonObject(int index) {
        return (JsonObject) values[index];
    }

    @Override
    public JsonArray getJsonArray(int index) {
        return (JsonArray) values[index];
    }

    @Override
    public JsonNumber getJsonNumber(int index) {
        return (JsonNumber) values[index];
    }

    @Override
    public JsonString getJsonString(int index) {
        return (JsonString) values[index];
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends JsonValue> List<T> getValuesAs(Class<T> clazz) {
        return (List<T>) this;
    }

    @Override
    public String getString(int index) {
        return getJsonString(index).getString();
    }

    @Override
    public String getString(int index, String defaultValue) {
        return index >= 0 && index < values.length && values[index] instanceof JsonString s
                ? s.getString() : defaultValue;
    }

    @Override
    public int getInt(int index) {
        return getJsonNumber(index).intValue();
    }

    @Override
    public int getInt(int index, int defaultValue) {
        return index >= 0 && index < values.length && values[index] instanceof JsonNumber n
                ? n.intValue() : defaultValue;
    }

    @Override
    public boolean getBoolean(int index) {
        JsonValue value = values[index];
        if (value == JsonValue.TRUE) {
            return true;
        }
        if (value == JsonValue.FALSE) {
            return false;
        }
        throw new ClassCastException("element " + index + " is a " + value.getValueType() + ", not a boolean");
    }

    @Override
    public boolean getBoolean(int index, boolean defaultValue) {
        if (index < 0 || index >= values.length) {
            return defaultValue;
        }
        JsonValue value = values[index];
        return value == JsonValue.TRUE || (value != JsonValue.FALSE && defaultValue);
    }

    @Override
    public boolean isNull(int index) {
        return values[index].getValueType() == ValueType.NULL;
    }

    @Override
    public ValueType getValueType() {
        return ValueType.ARRAY;
    }

    @Override
    public String toString() {
        return JsonText.write(this, JsonText.Escaping.PARSSON);
    }
}

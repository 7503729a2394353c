package io.remold.jsonpath;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.math.BigDecimal;
import java.util.Map;

/** JSON value helpers shared by the parser and the evaluator. */
final class Values {
    static final JsonProvider PROVIDER = JsonProvider.provider();

    private Values() {
    }

    /** A JSON number that prints integral values without a fraction ("3", not "3.0"). */
    static JsonNumber number(BigDecimal value) {
        if (value.signum() == 0) {
            return PROVIDER.createValue(0);
        }
        BigDecimal stripped = value.stripTrailingZeros();
        if (stripped.scale() <= 0 && stripped.precision() - stripped.scale() <= 40) {
            return PROVIDER.createValue(stripped.toBigIntegerExact());
        }
        return PROVIDER.createValue(value);
    }

    static JsonValue bool(boolean value) {
        return value ? JsonValue.TRUE : JsonValue.FALSE;
    }

    /** Deep equality; numbers compare numerically, object members regardless of order. */
    static boolean deepEquals(JsonValue a, JsonValue b) {
        if (a instanceof JsonNumber x && b instanceof JsonNumber y) {
            return x.bigDecimalValue().compareTo(y.bigDecimalValue()) == 0;
        }
        if (a.getValueType() != b.getValueType()) {
            return false;
        }
        return switch (a.getValueType()) {
            case STRING -> ((JsonString) a).getString().equals(((JsonString) b).getString());
            case ARRAY -> arraysEqual((JsonArray) a, (JsonArray) b);
            case OBJECT -> objectsEqual((JsonObject) a, (JsonObject) b);
            default -> true;
        };
    }

    private static boolean arraysEqual(JsonArray a, JsonArray b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!deepEquals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean objectsEqual(JsonObject a, JsonObject b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (Map.Entry<String, JsonValue> member : a.entrySet()) {
            JsonValue other = b.get(member.getKey());
            if (other == null || !deepEquals(member.getValue(), other)) {
                return false;
            }
        }
        return true;
    }

    /** The JSON type name used in error messages. */
    static String typeName(JsonValue value) {
        return switch (value.getValueType()) {
            case TRUE, FALSE -> "boolean";
            default -> value.getValueType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}

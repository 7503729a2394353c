package io.remold.engine;

import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.math.BigDecimal;
import java.util.Map;

/** Shared JSON helpers: the cached provider, Go-compatible text forms and numeric-aware equality. */
final class Json {
    static final JsonProvider PROVIDER = JsonProvider.provider();

    private Json() {
    }

    /**
     * The text a selected value is compared as: strings as they are, numbers as Go prints a float64, booleans as
     * true/false, null as Go's {@code <nil>}, objects and lists as compact JSON the way Go writes it.
     */
    static String matchText(JsonValue value) {
        return switch (value.getValueType()) {
            case STRING -> ((JsonString) value).getString();
            case NUMBER -> goNumber((JsonNumber) value);
            case TRUE -> "true";
            case FALSE -> "false";
            case NULL -> "<nil>";
            default -> JsonTree.goText(value);
        };
    }

    /**
     * Go's %v of a float64 (KubeMod decodes every number into one): the shortest representation, in exponent form
     * below 1e-4 and from 1e6 on ({@code 1e+06}, {@code 1.234567e+06}).
     */
    static String goNumber(JsonNumber number) {
        double d;
        try {
            d = number.doubleValue();
        } catch (NumberFormatException e) {
            return number.toString();
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        if (d == 0) {
            return (1 / d < 0) ? "-0" : "0";
        }
        BigDecimal shortest = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        int exponent = shortest.precision() - shortest.scale() - 1;
        if (exponent < -4 || exponent >= 6) {
            String digits = shortest.unscaledValue().abs().toString();
            var sb = new StringBuilder(d < 0 ? "-" : "").append(digits.charAt(0));
            if (digits.length() > 1) {
                sb.append('.').append(digits, 1, digits.length());
            }
            sb.append('e').append(exponent < 0 ? '-' : '+');
            int abs = Math.abs(exponent);
            if (abs < 10) {
                sb.append('0');
            }
            return sb.append(abs).toString();
        }
        return shortest.toPlainString();
    }

    /** Deep equality where numbers compare by value (1 equals 1.0), as they do after Go decodes them. */
    static boolean same(JsonValue a, JsonValue b) {
        if (a == b) {
            return true;
        }
        if (a.getValueType() != b.getValueType()) {
            return false;
        }
        return switch (a.getValueType()) {
            case NUMBER -> ((JsonNumber) a).bigDecimalValue().compareTo(((JsonNumber) b).bigDecimalValue()) == 0;
            case STRING -> ((JsonString) a).getString().equals(((JsonString) b).getString());
            case ARRAY -> {
                JsonArray x = (JsonArray) a;
                JsonArray y = (JsonArray) b;
                if (x.size() != y.size()) {
                    yield false;
                }
                for (int i = 0; i < x.size(); i++) {
                    if (!same(x.get(i), y.get(i))) {
                        yield false;
                    }
                }
                yield true;
            }
            case OBJECT -> {
                JsonObject x = (JsonObject) a;
                JsonObject y = (JsonObject) b;
                if (x.size() != y.size()) {
                    yield false;
                }
                for (Map.Entry<String, JsonValue> e : x.entrySet()) {
                    JsonValue other = y.get(e.getKey());
                    if (other == null || !same(e.getValue(), other)) {
                        yield false;
                    }
                }
                yield true;
            }
            default -> true;
        };
    }
}

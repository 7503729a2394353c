package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * The few CUE (cuelang.org/go v0.4.3) operations kinitiras's templates use, on JSON data: comparisons with CUE's
 * type rules (mismatched kinds are an error, not false), {@code list.Contains}'s kind-sensitive equality, {@code
 * len}, and arithmetic at CUE's decimal precision (24 digits, half-up).
 */
final class Cue {
    static final MathContext ARITHMETIC = new MathContext(24, RoundingMode.HALF_UP);

    /** The comparison operators of a validate condition, in CUE's spelling. */
    enum Comparison {
        EQ("=="), NE("!="), GE(">="), GT(">"), LE("<="), LT("<");

        final String symbol;

        Comparison(String symbol) {
            this.symbol = symbol;
        }
    }

    private Cue() {
    }

    /** {@code left <op> right} as CUE evaluates it; an operation CUE refuses is an evaluation error. */
    static boolean compare(JsonValue left, Comparison op, JsonValue right) throws PolicyEvaluationException {
        if (op == Comparison.EQ || op == Comparison.NE) {
            boolean equal;
            if (isNull(left) || isNull(right)) {
                equal = isNull(left) && isNull(right);
            } else if (isBool(left) && isBool(right)) {
                equal = left.getValueType() == right.getValueType();
            } else if (left instanceof JsonString l && right instanceof JsonString r) {
                equal = l.getString().equals(r.getString());
            } else if (left instanceof JsonNumber l && right instanceof JsonNumber r) {
                equal = l.bigDecimalValue().compareTo(r.bigDecimalValue()) == 0;
            } else if (left instanceof JsonArray l && right instanceof JsonArray r) {
                equal = listsEqual(l, r);
            } else {
                throw mismatch(left, op, right);
            }
            return equal == (op == Comparison.EQ);
        }
        int order;
        if (left instanceof JsonString l && right instanceof JsonString r) {
            order = l.getString().compareTo(r.getString());
        } else if (left instanceof JsonNumber l && right instanceof JsonNumber r) {
            order = l.bigDecimalValue().compareTo(r.bigDecimalValue());
        } else {
            throw mismatch(left, op, right);
        }
        return switch (op) {
            case GE -> order >= 0;
            case GT -> order > 0;
            case LE -> order <= 0;
            default -> order < 0;
        };
    }

    private static boolean listsEqual(JsonArray left, JsonArray right) {
        if (left.size() != right.size()) {
            return false;
        }
        for (int i = 0; i < left.size(); i++) {
            try {
                if (!compare(left.get(i), Comparison.EQ, right.get(i))) {
                    return false;
                }
            } catch (PolicyEvaluationException e) {
                return false;
            }
        }
        return true;
    }

    private static boolean isBool(JsonValue value) {
        return value.getValueType() == JsonValue.ValueType.TRUE || value.getValueType() == JsonValue.ValueType.FALSE;
    }

    static boolean isNull(JsonValue value) {
        return value.getValueType() == JsonValue.ValueType.NULL;
    }

    private static PolicyEvaluationException mismatch(JsonValue left, Comparison op, JsonValue right) {
        return new PolicyEvaluationException("invalid operation " + kind(left) + " " + op.symbol + " " + kind(right)
                + " (mismatched types)");
    }

    /** CUE's kind of a JSON datum; a number is an int when it is whole (as Kubernetes decodes it). */
    static String kind(JsonValue value) {
        return switch (value.getValueType()) {
            case NULL -> "null";
            case TRUE, FALSE -> "bool";
            case STRING -> "string";
            case NUMBER -> isInt((JsonNumber) value) ? "int" : "float";
            case ARRAY -> "list";
            case OBJECT -> "struct";
        };
    }

    private static boolean isInt(JsonNumber number) {
        BigDecimal value = number.bigDecimalValue();
        // stripping thousands of trailing zeros costs quadratic time: such a number counts as a float
        return value.scale() <= 0 || value.signum() == 0
                || value.scale() < 64 && value.stripTrailingZeros().scale() <= 0;
    }

    /**
     * {@code list.Contains} over a template's list, whose elements are strings or ints: equality of kind and value
     * (an int never equals a string, nor a float).
     */
    static boolean contains(JsonArray list, JsonValue value) {
        for (JsonValue element : list) {
            boolean equal = element instanceof JsonString s
                    ? value instanceof JsonString v && s.getString().equals(v.getString())
                    : value instanceof JsonNumber n && isInt(n)
                    && ((JsonNumber) element).bigDecimalValue().compareTo(n.bigDecimalValue()) == 0;
            if (equal) {
                return true;
            }
        }
        return false;
    }

    /** {@code len(x)} of a value the template requires to exist: a list's length or a struct's field count. */
    static int length(JsonValue value, String what) throws PolicyEvaluationException {
        if (value instanceof JsonArray a) {
            return a.size();
        }
        if (value instanceof JsonObject o) {
            return o.size();
        }
        if (value instanceof JsonString s) {
            return s.getString().getBytes(StandardCharsets.UTF_8).length;
        }
        throw new PolicyEvaluationException(value == null
                ? "incomplete value: " + what + " is not set"
                : "invalid argument to len: " + what + " is " + kind(value));
    }

    /** The number CUE reads from a literal or datum; non-numbers are an evaluation error. */
    static BigDecimal number(JsonValue value, String what) throws PolicyEvaluationException {
        if (value instanceof JsonNumber n) {
            return n.bigDecimalValue();
        }
        throw new PolicyEvaluationException("invalid operand " + what + " (" + kind(value) + "): not a number");
    }
}

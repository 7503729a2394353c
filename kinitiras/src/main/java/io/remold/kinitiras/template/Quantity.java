package io.remold.kinitiras.template;

import jakarta.json.JsonNumber;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes quantity of a {@code resources} template as kinitiras writes it: {@code Quantity.Value()}, the
 * value rounded away from zero to a whole number ({@code 500m} is 1, {@code 1Ki} is 1024).
 */
final class Quantity {
    private static final Pattern FORM = Pattern.compile("([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))"
            + "(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?");
    private static final Map<String, BigDecimal> SUFFIXES = Map.ofEntries(
            Map.entry("Ki", BigDecimal.valueOf(1L << 10)), Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
            Map.entry("Gi", BigDecimal.valueOf(1L << 30)), Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
            Map.entry("Pi", BigDecimal.valueOf(1L << 50)), Map.entry("Ei", BigDecimal.valueOf(1L << 60)),
            Map.entry("n", new BigDecimal("1e-9")), Map.entry("u", new BigDecimal("1e-6")),
            Map.entry("m", new BigDecimal("1e-3")), Map.entry("k", new BigDecimal("1e3")),
            Map.entry("M", new BigDecimal("1e6")), Map.entry("G", new BigDecimal("1e9")),
            Map.entry("T", new BigDecimal("1e12")), Map.entry("P", new BigDecimal("1e15")),
            Map.entry("E", new BigDecimal("1e18")));
    private static final int MAX_LENGTH = 64;

    private Quantity() {
    }

    /** The whole-number value of a quantity given as a string or a JSON number; refused when it is not one. */
    static long value(JsonValue quantity, String field) {
        BigDecimal value;
        if (quantity instanceof JsonNumber n) {
            value = n.bigDecimalValue();
        } else if (quantity instanceof JsonString s && s.getString().length() <= MAX_LENGTH) {
            value = parse(s.getString(), field);
        } else {
            throw new InvalidTemplateException(field, "quantities must match the regular expression "
                    + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
        }
        if (value.precision() - value.scale() > 19) {
            throw new InvalidTemplateException(field, "quantity is out of range");
        }
        try {
            return value.setScale(0, RoundingMode.UP).longValueExact();
        } catch (ArithmeticException e) {
            throw new InvalidTemplateException(field, "quantity is out of range");
        }
    }

    private static BigDecimal parse(String text, String field) {
        Matcher m = FORM.matcher(text);
        if (!m.matches()) {
            throw new InvalidTemplateException(field, "quantities must match the regular expression "
                    + "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
        }
        BigDecimal number = new BigDecimal(m.group(1));
        String suffix = m.group(2);
        if (suffix == null) {
            return number;
        }
        if (SUFFIXES.containsKey(suffix)) {
            return number.multiply(SUFFIXES.get(suffix));
        }
        int exponent;
        try {
            exponent = Integer.parseInt(suffix.substring(1));
        } catch (NumberFormatException e) {
            throw new InvalidTemplateException(field, "quantity is out of range");
        }
        if (Math.abs(exponent) > 64) {
            throw new InvalidTemplateException(field, "quantity is out of range");
        }
        return number.scaleByPowerOfTen(exponent);
    }
}

package io.remold.kinitiras;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes resource quantities ({@code 500m}, {@code 1.5Gi}, {@code 2e3}) as kinitiras's {@code resourceOversell}
 * reads and writes them: read exactly, rounded up to milli-units (cpu) or units (memory, storage), and written in
 * the API machinery's canonical form ({@code 1500m}, {@code 512Mi}).
 */
final class Quantities {
    private static final Pattern QUANTITY = Pattern.compile(
            "([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))([eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?");
    private static final Map<String, BigDecimal> SUFFIXES = Map.ofEntries(
            Map.entry("n", BigDecimal.ONE.movePointLeft(9)), Map.entry("u", BigDecimal.ONE.movePointLeft(6)),
            Map.entry("m", BigDecimal.ONE.movePointLeft(3)), Map.entry("k", BigDecimal.ONE.movePointRight(3)),
            Map.entry("M", BigDecimal.ONE.movePointRight(6)), Map.entry("G", BigDecimal.ONE.movePointRight(9)),
            Map.entry("T", BigDecimal.ONE.movePointRight(12)), Map.entry("P", BigDecimal.ONE.movePointRight(15)),
            Map.entry("E", BigDecimal.ONE.movePointRight(18)),
            Map.entry("Ki", BigDecimal.valueOf(1L << 10)), Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
            Map.entry("Gi", BigDecimal.valueOf(1L << 30)), Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
            Map.entry("Pi", BigDecimal.valueOf(1L << 50)), Map.entry("Ei", BigDecimal.valueOf(1L << 60)));
    private static final String[] DECIMAL = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    private static final String[] BINARY = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

    private Quantities() {
    }

    /** The quantity's value, or empty when the text is not a quantity (or absurdly large). */
    static Optional<BigDecimal> parse(String text) {
        Matcher m = QUANTITY.matcher(text);
        if (!m.matches() || text.length() > 64) {
            return Optional.empty();
        }
        BigDecimal number = new BigDecimal(m.group(1));
        String suffix = m.group(2);
        if (suffix == null) {
            return Optional.of(number);
        }
        if (suffix.length() > 1 && (suffix.charAt(0) == 'e' || suffix.charAt(0) == 'E')) {
            int exponent = Integer.parseInt(suffix.substring(1));
            return Math.abs(exponent) > 30 ? Optional.empty() : Optional.of(number.scaleByPowerOfTen(exponent));
        }
        return Optional.of(number.multiply(SUFFIXES.get(suffix)));
    }

    /** {@code MilliValue()}: the value in thousandths, rounded up. */
    static long milliValue(BigDecimal value) {
        return value.movePointRight(3).setScale(0, RoundingMode.CEILING).longValue();
    }

    /** {@code Value()}: the value rounded up. */
    static long value(BigDecimal value) {
        return value.setScale(0, RoundingMode.CEILING).longValue();
    }

    /** {@code NewMilliQuantity(milli, DecimalSI).String()}: trailing zeros taken into an SI suffix of 10^3n. */
    static String decimalMilli(long milli) {
        if (milli == 0) {
            return "0";
        }
        long amount = milli;
        int exponent = -3;
        while (amount % 10 == 0) {
            amount /= 10;
            exponent++;
        }
        int rest = Math.floorMod(exponent, 3);
        for (int i = 0; i < rest; i++) {
            amount *= 10;
        }
        exponent -= rest;
        int index = exponent / 3 + 3;
        return amount + (index >= 0 && index < DECIMAL.length ? DECIMAL[index] : "e" + exponent);
    }

    /** {@code NewQuantity(n, BinarySI).String()}: a power of 1024 suffix when exact, plain below 1024. */
    static String binary(long n) {
        if (n > -1024 && n < 1024) {
            return Long.toString(n);
        }
        long amount = n;
        int exponent = 0;
        while (amount % 1024 == 0 && exponent < BINARY.length - 1) {
            amount /= 1024;
            exponent++;
        }
        return amount + BINARY[exponent];
    }
}

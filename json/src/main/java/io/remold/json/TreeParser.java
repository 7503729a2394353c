package io.remold.json;

import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonLocation;
import jakarta.json.stream.JsonParsingException;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Set;

/**
 * A one-pass recursive-descent parser from UTF-8 bytes straight into compact immutable containers, with no token
 * stream and no per-object hash map. Keys and values of open containers wait on two stacks and are copied into
 * exact-size arrays when their container closes (the stacks are not cleared: the parser lives for one parse).
 * Numbers and non-ASCII strings are Parsson's own values; ASCII strings are slices of the input decoded when first
 * read. Equality, hashing and text are the same as for a tree Parsson read. One instance per parse.
 */
final class TreeParser {
    static final int MAX_DEPTH = 1000;
    /**
     * Most characters of one number: the API server writes a number in at most 24 (Go's shortest form of a
     * float64), and even the exact plain decimal of the smallest float64 is shorter; longer digit strings would only
     * cost parse time (converting digits to binary grows faster than their count).
     */
    static final int MAX_NUMBER_CHARS = 1100;
    private static final BigDecimal MAX_FLOAT64 = new BigDecimal(Double.MAX_VALUE);
    /** Half the smallest float64: anything above rounds to a float64 other than 0. */
    private static final BigDecimal HALF_MIN_FLOAT64 = new BigDecimal(Double.MIN_VALUE).divide(BigDecimal.TWO);
    private static final JsonProvider PROVIDER = JsonProvider.provider();
    private static final JsonValue[] SMALL_INTS = new JsonValue[256];
    /**
     * Object keys repeat across requests ("name", "image", "containerPort"...): two shared racy caches, one for keys
     * of up to 16 bytes (most of them), compared as two words, one for longer keys. 4096 slots each.
     */
    private static final ShortKey[] SHORT_KEYS = new ShortKey[4096];
    private static final CachedKey[] LONG_KEYS = new CachedKey[4096];
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int MAX_CACHED_KEY = 32;

    static {
        for (int i = 0; i < SMALL_INTS.length; i++) {
            SMALL_INTS[i] = PROVIDER.createValue(i);
        }
    }

    private final byte[] in;
    private final int end;
    private final Set<String> deferredMembers;
    private int pos;
    private int depth;
    private String[] keyStack = new String[32];
    private JsonValue[] valueStack = new JsonValue[64];
    private int keyTop;
    private int valueTop;

    private TreeParser(byte[] in, int offset, int length, Set<String> deferredMembers) {
        this.in = in;
        this.pos = offset;
        this.end = offset + length;
        this.deferredMembers = deferredMembers;
    }

    /**
     * Parses one JSON text. Object members of the top-level object's direct child objects whose key is in
     * {@code deferredMembers} are checked for syntax only and parsed when first read.
     */
    static JsonValue parse(byte[] in, int offset, int length, Set<String> deferredMembers) {
        var parser = new TreeParser(in, offset, length, deferredMembers);
        parser.skipWhitespace();
        JsonValue value = parser.value();
        parser.skipWhitespace();
        if (parser.pos < parser.end) {
            throw parser.error("unexpected content after the JSON value");
        }
        return value;
    }

    private JsonValue value() {
        if (pos >= end) {
            throw error("unexpected end of input, expected a value");
        }
        byte b = in[pos];
        return switch (b) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> stringValue();
            case 't' -> literal("true", JsonValue.TRUE);
            case 'f' -> literal("false", JsonValue.FALSE);
            case 'n' -> literal("null", JsonValue.NULL);
            default -> {
                if (b == '-' || (b >= '0' && b <= '9')) {
                    yield number();
                }
                throw error("unexpected " + describe(b) + ", expected a value");
            }
        };
    }

    private JsonValue object() {
        enter();
        pos++;
        int keyBase = keyTop;
        int valueBase = valueTop;
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            depth--;
            return new CompactObject(new String[0], new JsonValue[0]);
        }
        do {
            expectKey();
            String key = key();
            colon();
            JsonValue value = depth == 2 && deferredMembers.contains(key) ? deferred() : value();
            pushKey(key);
            pushValue(value);
            skipWhitespace();
        } while (separator('}'));
        depth--;
        String[] keys = Arrays.copyOfRange(keyStack, keyBase, keyTop);
        JsonValue[] values = Arrays.copyOfRange(valueStack, valueBase, valueTop);
        keyTop = keyBase;
        valueTop = valueBase;
        return keys.length > 1 ? CompactObject.distinct(keys, values) : new CompactObject(keys, values);
    }

    private JsonValue array() {
        enter();
        pos++;
        int base = valueTop;
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            depth--;
            return new CompactArray(new JsonValue[0]);
        }
        do {
            pushValue(value());
            skipWhitespace();
        } while (separator(']'));
        depth--;
        JsonValue[] values = Arrays.copyOfRange(valueStack, base, valueTop);
        valueTop = base;
        return new CompactArray(values);
    }

    /** Checks the value's syntax without building it; it is parsed again, from its own bytes, when first read. */
    private JsonValue deferred() {
        int start = pos;
        skipValue();
        if (in[start] != '{') {
            return parse(in, start, pos - start, Set.of());
        }
        return new DeferredObject(in, start, pos - start);
    }

    private void skipValue() {
        byte b = peek();
        switch (b) {
            case '{' -> {
                enter();
                pos++;
                skipWhitespace();
                if (peek() == '}') {
                    pos++;
                } else {
                    do {
                        expectKey();
                        skipString();
                        colon();
                        skipValue();
                        skipWhitespace();
                    } while (separator('}'));
                }
                depth--;
            }
            case '[' -> {
                enter();
                pos++;
                skipWhitespace();
                if (peek() == ']') {
                    pos++;
                } else {
                    do {
                        skipValue();
                        skipWhitespace();
                    } while (separator(']'));
                }
                depth--;
            }
            case '"' -> skipString();
            default -> value();
        }
    }

    private void expectKey() {
        if (peek() != '"') {
            throw error("unexpected " + describe(peek()) + ", expected a quoted key");
        }
    }

    /** The colon between a key and its value, with the whitespace around it. */
    private void colon() {
        skipWhitespace();
        expect(':');
        skipWhitespace();
    }

    /** After a member or element: true on a comma (and skips the whitespace after it), false on the closer. */
    private boolean separator(char closer) {
        byte b = peek();
        pos++;
        if (b == closer) {
            return false;
        }
        if (b != ',') {
            pos--;
            throw error("unexpected " + describe(b) + ", expected , or " + closer);
        }
        skipWhitespace();
        return true;
    }

    private void skipString() {
        pos++;
        while (true) {
            pos = scanPlain(pos);
            if (pos >= end) {
                throw error("unterminated string");
            }
            byte b = in[pos];
            if (b == '"') {
                pos++;
                return;
            }
            if (b == '\\') {
                escape(null);
            } else if (b >= 0 && b < 0x20) {
                throw error("unescaped control character in a string");
            } else {
                pos++;
            }
        }
    }

    private String key() {
        int start = pos + 1;
        int stop = scanPlain(start);
        int length = stop - start;
        if (stop >= end || in[stop] != '"' || length > MAX_CACHED_KEY) {
            return string(start, stop);
        }
        pos = stop + 1;
        if (length <= 16) {
            // The two words are read whole: a key in the input's last 16 bytes is not cached.
            return start + 16 <= in.length ? shortKey(start, length)
                    : new String(in, start, length, StandardCharsets.ISO_8859_1);
        }
        int hash = length;
        long mixed = ((long) LONGS.get(in, start) ^ (long) LONGS.get(in, stop - 8) * 31) * 0x9E3779B97F4A7C15L;
        hash ^= (int) (mixed >>> 32);
        int slot = (hash ^ (hash >>> 12)) & (LONG_KEYS.length - 1);
        CachedKey cached = LONG_KEYS[slot];
        if (cached != null && Arrays.equals(cached.bytes, 0, cached.bytes.length, in, start, stop)) {
            return cached.key;
        }
        var key = new CachedKey(Arrays.copyOfRange(in, start, stop));
        LONG_KEYS[slot] = key;
        return key.key;
    }

    /**
     * A key of at most 16 bytes is its own two words, zero past its end (ASCII has no zero byte, so the words imply
     * the length): a cached key is found with two compares in one small immutable entry, which racy readers see
     * whole.
     */
    private String shortKey(int start, int length) {
        long lo = (long) LONGS.get(in, start);
        long hi = (long) LONGS.get(in, start + 8);
        if (length <= 8) {
            lo &= length == 8 ? -1L : (1L << (length << 3)) - 1;
            hi = 0;
        } else {
            hi &= length == 16 ? -1L : (1L << ((length - 8) << 3)) - 1;
        }
        int slot = (int) (((lo ^ hi * 31) * 0x9E3779B97F4A7C15L) >>> 52);
        ShortKey cached = SHORT_KEYS[slot];
        if (cached != null && cached.lo == lo && cached.hi == hi) {
            return cached.key;
        }
        var key = new ShortKey(lo, hi, new String(in, start, length, StandardCharsets.ISO_8859_1));
        SHORT_KEYS[slot] = key;
        return key.key;
    }

    private record ShortKey(long lo, long hi, String key) {
    }

    /** A key longer than 16 bytes and its bytes, compared with a vectorised {@link Arrays#equals}. */
    private record CachedKey(byte[] bytes, String key) {
        CachedKey(byte[] bytes) {
            this(bytes, new String(bytes, StandardCharsets.ISO_8859_1));
        }
    }

    /**
     * The first index from {@code i} on that holds a quote, a backslash, a control character or a non-ASCII byte
     * ({@code end} if none), eight bytes at a time: most of a Kubernetes object is plain ASCII inside strings.
     * The classic has-zero-byte tricks flag the first matching byte exactly; later flags may be false, and are
     * ignored.
     */
    private int scanPlain(int i) {
        byte[] in = this.in;
        while (i + 8 <= end) {
            long w = (long) LONGS.get(in, i);
            long quote = w ^ 0x2222222222222222L;
            long backslash = w ^ 0x5c5c5c5c5c5c5c5cL;
            long special = ((quote - 0x0101010101010101L) & ~quote)
                    | ((backslash - 0x0101010101010101L) & ~backslash)
                    | ((w - 0x2020202020202020L) & ~w)
                    | w;
            special &= 0x8080808080808080L;
            if (special != 0) {
                return i + (Long.numberOfTrailingZeros(special) >>> 3);
            }
            i += 8;
        }
        while (i < end) {
            byte b = in[i];
            if (b == '"' || b == '\\' || b < 0x20) {
                return i;
            }
            i++;
        }
        return end;
    }

    private JsonValue stringValue() {
        int start = pos + 1;
        int stop = scanPlain(start);
        if (stop < end && in[stop] == '"') {
            pos = stop + 1;
            return new AsciiString(in, start, stop - start);
        }
        return PROVIDER.createValue(string(start, stop));
    }

    /** The string whose text begins at {@code start}, where {@link #scanPlain} stopped at {@code i}. */
    private String string(int start, int i) {
        if (i < end && in[i] == '"') {
            pos = i + 1;
            return new String(in, start, i - start, StandardCharsets.ISO_8859_1);
        }
        int negative = 0;
        for (; i < end; i++) {
            byte b = in[i];
            if (b == '"') {
                pos = i + 1;
                return new String(in, start, i - start,
                        negative < 0 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
            }
            if (b == '\\') {
                pos = i;
                return escapedString(start);
            }
            if (b >= 0 && b < 0x20) {
                pos = i;
                throw error("unescaped control character in a string");
            }
            negative |= b;
        }
        pos = end;
        throw error("unterminated string");
    }

    /** The slow path, from the first escape on: plain runs are decoded as UTF-8 between escapes. */
    private String escapedString(int start) {
        var sb = new StringBuilder(pos - start + 16);
        int run = start;
        while (true) {
            if (pos >= end) {
                throw error("unterminated string");
            }
            byte b = in[pos];
            if (b == '"') {
                sb.append(new String(in, run, pos - run, StandardCharsets.UTF_8));
                pos++;
                return sb.toString();
            }
            if (b == '\\') {
                sb.append(new String(in, run, pos - run, StandardCharsets.UTF_8));
                escape(sb);
                run = pos;
            } else if (b >= 0 && b < 0x20) {
                throw error("unescaped control character in a string");
            } else {
                pos++;
            }
        }
    }

    /** Reads one escape sequence at {@code pos}, appending what it stands for when {@code sb} is not null. */
    private void escape(StringBuilder sb) {
        if (pos + 1 >= end) {
            throw error("unterminated string");
        }
        byte b = in[pos + 1];
        char c;
        switch (b) {
            case '"' -> c = '"';
            case '\\' -> c = '\\';
            case '/' -> c = '/';
            case 'b' -> c = '\b';
            case 'f' -> c = '\f';
            case 'n' -> c = '\n';
            case 'r' -> c = '\r';
            case 't' -> c = '\t';
            case 'u' -> {
                if (pos + 6 > end) {
                    throw error("unterminated string");
                }
                int code = 0;
                for (int i = pos + 2; i < pos + 6; i++) {
                    int digit = Character.digit(in[i], 16);
                    if (digit < 0) {
                        pos = i;
                        throw error("invalid \\u escape");
                    }
                    code = code * 16 + digit;
                }
                pos += 6;
                if (sb != null) {
                    sb.append((char) code);
                }
                return;
            }
            default -> {
                pos++;
                throw error("invalid escape \\" + describeChar(b));
            }
        }
        pos += 2;
        if (sb != null) {
            sb.append(c);
        }
    }

    private JsonValue number() {
        int start = pos;
        if (in[pos] == '-') {
            pos++;
        }
        int intStart = pos;
        if (pos < end && in[pos] == '0') {
            pos++;
        } else if (pos < end && in[pos] >= '1' && in[pos] <= '9') {
            digits();
        } else {
            throw error("invalid number, expected a digit");
        }
        int intDigits = pos - intStart;
        boolean integral = true;
        if (pos < end && in[pos] == '.') {
            pos++;
            integral = false;
            if (digits() == 0) {
                throw error("invalid number, expected a digit after the decimal point");
            }
        }
        if (pos < end && (in[pos] == 'e' || in[pos] == 'E')) {
            pos++;
            integral = false;
            if (pos < end && (in[pos] == '+' || in[pos] == '-')) {
                pos++;
            }
            if (digits() == 0) {
                throw error("invalid number, expected a digit in the exponent");
            }
        }
        if (integral && intDigits <= 18) {
            long value = 0;
            for (int i = intStart; i < pos; i++) {
                value = value * 10 + (in[i] - '0');
            }
            if (start != intStart) {
                value = -value;
            }
            if (value >= 0 && value < SMALL_INTS.length) {
                return SMALL_INTS[(int) value];
            }
            return value == (int) value ? PROVIDER.createValue((int) value) : PROVIDER.createValue(value);
        }
        if (pos - start > MAX_NUMBER_CHARS) {
            pos = start;
            throw error("number longer than " + MAX_NUMBER_CHARS + " characters");
        }
        String text = new String(in, start, pos - start, StandardCharsets.ISO_8859_1);
        BigDecimal value;
        try {
            value = new BigDecimal(text);
        } catch (NumberFormatException e) {
            value = null;
        }
        if (value == null || !float64(value)) {
            pos = start;
            throw error("number " + text + " is out of range (beyond a float64)");
        }
        return PROVIDER.createValue(value);
    }

    /**
     * Whether a nonzero number's magnitude is one a float64 holds: the API server decodes every number into an
     * int64 or a float64, so it never sends one outside, and printing one (1e999999999 in plain notation) could
     * take a billion characters.
     */
    private static boolean float64(BigDecimal value) {
        if (value.signum() == 0) {
            // a zero written with an exponent (0e-999999999) still prints its scale's digits in plain notation
            long exponent = (long) value.precision() - value.scale() - 1;
            return exponent >= -324 && exponent <= 308;
        }
        BigDecimal magnitude = value.abs();
        return magnitude.compareTo(MAX_FLOAT64) <= 0 && magnitude.compareTo(HALF_MIN_FLOAT64) > 0;
    }

    private int digits() {
        int start = pos;
        while (pos < end && in[pos] >= '0' && in[pos] <= '9') {
            pos++;
        }
        return pos - start;
    }

    private JsonValue literal(String word, JsonValue value) {
        for (int i = 0; i < word.length(); i++) {
            if (pos + i >= end || in[pos + i] != word.charAt(i)) {
                pos += i;
                throw error(pos >= end ? "unexpected end of input in " + word
                        : "unexpected " + describe(in[pos]) + " in " + word);
            }
        }
        pos += word.length();
        return value;
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw error("nesting deeper than " + MAX_DEPTH + " levels");
        }
    }

    private void pushKey(String key) {
        if (keyTop == keyStack.length) {
            keyStack = Arrays.copyOf(keyStack, keyTop * 2);
        }
        keyStack[keyTop++] = key;
    }

    private void pushValue(JsonValue value) {
        if (valueTop == valueStack.length) {
            valueStack = Arrays.copyOf(valueStack, valueTop * 2);
        }
        valueStack[valueTop++] = value;
    }

    private byte peek() {
        if (pos >= end) {
            throw error("unexpected end of input");
        }
        return in[pos];
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("unexpected " + describe(in[pos]) + ", expected " + c);
        }
        pos++;
    }

    private void skipWhitespace() {
        int i = pos;
        while (i < end) {
            byte b = in[i];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                break;
            }
            i++;
        }
        pos = i;
    }

    private static String describe(byte b) {
        return "character " + describeChar(b);
    }

    private static String describeChar(byte b) {
        return b >= 0x21 && b < 0x7f ? "'" + (char) b + "'" : String.format("0x%02x", b & 0xff);
    }

    /** The error at {@code pos}, with line and column counted in characters the way an editor shows them. */
    private JsonParsingException error(String message) {
        long line = 1;
        long column = 1;
        int stop = Math.min(pos, end);
        for (int i = 0; i < stop; i++) {
            if (in[i] == '\n') {
                line++;
                column = 1;
            } else if ((in[i] & 0xc0) != 0x80) {
                column++;
            }
        }
        var location = new Location(line, column, stop);
        return new JsonParsingException(message + " at line " + line + ", column " + column, location);
    }

    private record Location(long getLineNumber, long getColumnNumber, long getStreamOffset) implements JsonLocation {
    }
}

package io.remold.json;

import jakarta.json.JsonString;

import java.nio.charset.StandardCharsets;

/**
 * A JSON string of plain ASCII, kept as a slice of the request's bytes and decoded when first read: rules read a
 * handful of the hundreds of strings in an object, and skipping the rest halves what a parse allocates. Equal to,
 * and hashed like, any {@link JsonString} with the same text.
 */
final class AsciiString implements JsonString {
    private final byte[] in;
    private final int offset;
    private final int length;
    /** Racy but idempotent: every thread decodes the same text. */
    private String text;

    AsciiString(byte[] in, int offset, int length) {
        this.in = in;
        this.offset = offset;
        this.length = length;
    }

    @Override
    public String getString() {
        String s = text;
        if (s == null) {
            s = new String(in, offset, length, StandardCharsets.ISO_8859_1);
            text = s;
        }
        return s;
    }

    @Override
    public CharSequence getChars() {
        return getString();
    }

    @Override
    public ValueType getValueType() {
        return ValueType.STRING;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JsonString other && getString().equals(other.getString());
    }

    @Override
    public int hashCode() {
        return getString().hashCode();
    }

    @Override
    public String toString() {
        var sb = new StringBuilder(length + 2);
        JsonText.quote(getString(), JsonText.Escaping.PARSSON, sb);
        return sb.toString();
    }
}

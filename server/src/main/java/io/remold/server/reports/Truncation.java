package io.remold.server.reports;

import java.nio.charset.StandardCharsets;

/** Cuts text to a number of UTF-8 bytes, saying so at its end. */
final class Truncation {
    private Truncation() {
    }

    /**
     * {@code text} if it has at most {@code maxBytes} UTF-8 bytes, else its beginning (whole characters) followed by
     * {@code …[truncated: N of M bytes]}, all within {@code maxBytes} when that leaves room for the marker.
     */
    static String cap(String text, int maxBytes) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes) {
            return text;
        }
        String marker = "…[truncated: " + bytes.length + " bytes]";
        int room = Math.max(0, maxBytes - marker.getBytes(StandardCharsets.UTF_8).length);
        int end = room;
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) { // not in the middle of a character
            end--;
        }
        return new String(bytes, 0, end, StandardCharsets.UTF_8) + marker;
    }
}

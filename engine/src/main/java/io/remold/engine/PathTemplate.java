package io.remold.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * A patch path with {@code #N} placeholders, replaced by the N-th capture (wildcard key or index) of a select
 * result. A placeholder without capture renders as {@code #(BADINDEX)}, which fails the operation.
 */
final class PathTemplate {
    static final String BAD_INDEX = "#(BADINDEX)";

    /** Literal text (String) and placeholder indices (Integer), in order. */
    private final List<Object> parts;
    private final String source;

    private PathTemplate(String source, List<Object> parts) {
        this.source = source;
        this.parts = parts;
    }

    static PathTemplate parse(String path) {
        var parts = new ArrayList<Object>();
        var literal = new StringBuilder();
        int i = 0;
        while (i < path.length()) {
            char c = path.charAt(i);
            int digits = i + 1;
            while (c == '#' && digits < path.length() && Character.isDigit(path.charAt(digits))) {
                digits++;
            }
            if (c == '#' && digits > i + 1 && digits - i - 1 <= 9) {
                if (!literal.isEmpty()) {
                    parts.add(literal.toString());
                    literal.setLength(0);
                }
                parts.add(Integer.parseInt(path.substring(i + 1, digits)));
                i = digits;
            } else {
                literal.append(c);
                i++;
            }
        }
        if (!literal.isEmpty()) {
            parts.add(literal.toString());
        }
        return new PathTemplate(path, List.copyOf(parts));
    }

    /** The largest N of the {@code #N} placeholders, -1 when there are none. */
    int highestPlaceholder() {
        int highest = -1;
        for (Object part : parts) {
            if (part instanceof Integer index) {
                highest = Math.max(highest, index);
            }
        }
        return highest;
    }

    String source() {
        return source;
    }

    /** The path for one select result; keys are inserted JSON-Pointer-escaped. */
    String render(List<Object> captures) {
        var sb = new StringBuilder();
        for (Object part : parts) {
            if (part instanceof Integer index) {
                if (index < captures.size()) {
                    sb.append(JsonPatcher.escape(String.valueOf(captures.get(index))));
                } else {
                    sb.append(BAD_INDEX);
                }
            } else {
                sb.append((String) part);
            }
        }
        return sb.toString();
    }
}

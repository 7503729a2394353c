package io.remold.kinitiras.template;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A {@code path} of a valueRef or dataRef as the selector kinitiras writes after the referenced object in its CUE
 * ({@code object.<path>}): a path with a slash becomes labels and indexes (a part with a dash quoted, a number an
 * index), one without is taken as CUE text as it is. Only selector chains are accepted (kinitiras would splice any
 * CUE expression there).
 */
record CuePath(String text, List<Selector> selectors) {
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");

    sealed interface Selector permits Label, Index {
    }

    /** A field; a hidden one ({@code _x}) never matches data. */
    record Label(String name, boolean hidden) implements Selector {
    }

    record Index(int index) implements Selector {
    }

    CuePath {
        selectors = List.copyOf(selectors);
    }

    /** kinitiras's rewriting of a policy path into CUE selector text. */
    static String cueText(String path) {
        if (!path.contains("/")) {
            return path;
        }
        String[] parts = trimSlashes(path).split("/", -1);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i].contains("-") ? "\"" + parts[i] + "\"" : parts[i];
            if (DIGITS.matcher(part).matches()) {
                text.append('[').append(part).append(']');
                continue;
            }
            if (i > 0) {
                text.append('.');
            }
            text.append(part);
        }
        return text.toString();
    }

    private static String trimSlashes(String path) {
        int start = 0;
        int end = path.length();
        while (start < end && path.charAt(start) == '/') {
            start++;
        }
        while (end > start && path.charAt(end - 1) == '/') {
            end--;
        }
        return path.substring(start, end);
    }

    static CuePath parse(String path, String field) {
        String text = Fields.bounded(cueText(path), field);
        List<Selector> selectors = new ArrayList<>();
        int i = 0;
        boolean first = true;
        while (i < text.length() || first) {
            char c = i < text.length() ? text.charAt(i) : 0;
            if (!first && c == '[') {
                int close = text.indexOf(']', i);
                String index = close < 0 ? "" : text.substring(i + 1, close);
                if (!index.matches("0|[1-9][0-9]{0,8}")) {
                    throw invalid(field, text);
                }
                selectors.add(new Index(Integer.parseInt(index)));
                i = close + 1;
                continue;
            }
            if (!first) {
                if (c != '.') {
                    throw invalid(field, text);
                }
                i++;
            }
            first = false;
            i = label(text, i, field, selectors);
        }
        return new CuePath(text, selectors);
    }

    private static int label(String text, int start, String field, List<Selector> selectors) {
        if (start < text.length() && text.charAt(start) == '"') {
            int close = text.indexOf('"', start + 1);
            if (close < 0) {
                throw invalid(field, text);
            }
            String name = text.substring(start + 1, close);
            if (name.indexOf('\\') >= 0) {
                throw invalid(field, text);
            }
            selectors.add(new Label(name, false));
            return close + 1;
        }
        int end = start;
        while (end < text.length() && identifierPart(text.charAt(end), end == start)) {
            end++;
        }
        if (end == start) {
            throw invalid(field, text);
        }
        String name = text.substring(start, end);
        selectors.add(new Label(name, name.startsWith("_")));
        return end;
    }

    private static boolean identifierPart(char c, boolean first) {
        return Character.isLetter(c) || c == '_' || c == '$' || (!first && c >= '0' && c <= '9');
    }

    private static InvalidTemplateException invalid(String field, String text) {
        return new InvalidTemplateException(field, "\"" + text + "\" is not a CUE selector path");
    }

    /** The value at this path below {@code root}, or empty where CUE's selection gives bottom ({@code _|_}). */
    Optional<JsonValue> find(JsonValue root) {
        JsonValue current = root;
        for (Selector selector : selectors) {
            switch (selector) {
                case Label label -> {
                    if (label.hidden() || !(current instanceof JsonObject o) || !o.containsKey(label.name())) {
                        return Optional.empty();
                    }
                    current = o.get(label.name());
                }
                case Index index -> {
                    if (!(current instanceof JsonArray a) || index.index() >= a.size()) {
                        return Optional.empty();
                    }
                    current = a.get(index.index());
                }
            }
        }
        return Optional.ofNullable(current);
    }
}

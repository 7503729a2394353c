package io.remold.templating;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Go's {@code Regexp.ReplaceAllString}: {@code $1}, {@code ${1}}, {@code $name}, {@code ${name}} and {@code $$} in
 * the replacement, an unknown group is empty, and an empty match right after a match is not replaced.
 *
 * <p>The replacement is parsed once against its pattern. Matching finds each match without its groups first (RE2J
 * runs the slower capturing pass only when a group is asked for): an input without a match is returned as it is,
 * and a replacement that refers to no group (other than {@code $0}) never loads the groups.
 */
final class GoReplacement {
    /** The pieces of the replacement: a String is literal text, an Integer the number of a group of the pattern. */
    private final Object[] parts;
    private final boolean usesGroups;

    private GoReplacement(Object[] parts) {
        this.parts = parts;
        boolean groups = false;
        for (Object part : parts) {
            groups |= part instanceof Integer group && group > 0;
        }
        this.usesGroups = groups;
    }

    static String replaceAll(Pattern pattern, String input, String replacement) {
        return compile(replacement, pattern).replaceAll(pattern, input);
    }

    /** Parses {@code template} for {@code pattern}; references to groups the pattern does not have are dropped. */
    static GoReplacement compile(String template, Pattern pattern) {
        Map<String, Integer> names = pattern.namedGroups();
        int groupCount = pattern.groupCount();
        List<Object> parts = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c != '$') {
                text.append(c);
                i++;
                continue;
            }
            i++;
            if (i < template.length() && template.charAt(i) == '$') {
                text.append('$');
                i++;
                continue;
            }
            boolean brace = i < template.length() && template.charAt(i) == '{';
            int start = brace ? i + 1 : i;
            int end = start;
            while (end < template.length() && (Character.isLetterOrDigit(template.charAt(end)) || template.charAt(end) == '_')) {
                end++;
            }
            if (end == start || (brace && (end >= template.length() || template.charAt(end) != '}'))) {
                text.append('$'); // malformed: the dollar is literal text
                continue;
            }
            String name = template.substring(start, end);
            i = brace ? end + 1 : end;
            int group = group(name, names);
            if (group >= 0 && group <= groupCount) {
                if (!text.isEmpty()) {
                    parts.add(text.toString());
                    text.setLength(0);
                }
                parts.add(group);
            }
        }
        if (!text.isEmpty()) {
            parts.add(text.toString());
        }
        return new GoReplacement(parts.toArray());
    }

    /** True when the replacement refers to a capture group (other than the whole match). */
    boolean usesGroups() {
        return usesGroups;
    }

    /** Every match of {@code pattern} (the pattern this replacement was compiled for) in {@code input} replaced. */
    String replaceAll(Pattern pattern, String input) {
        Matcher matcher = pattern.matcher(input);
        if (!matcher.find()) {
            return input;
        }
        StringBuilder out = new StringBuilder(input.length() + 16);
        int lastMatchEnd = 0;
        do {
            if (out.length() > TextValues.MAX_RENDERED_CHARS) {
                break; // the caller refuses a result this long: stop growing it
            }
            int start = matcher.start();
            int end = matcher.end();
            out.append(input, lastMatchEnd, start);
            if (end > lastMatchEnd || start == 0) {
                expand(out, input, matcher, start, end);
            }
            lastMatchEnd = end;
        } while (matcher.find());
        return out.append(input, lastMatchEnd, input.length()).toString();
    }

    private void expand(StringBuilder out, String input, Matcher matcher, int start, int end) {
        for (Object part : parts) {
            if (part instanceof String text) {
                out.append(text);
            } else {
                int group = (Integer) part;
                if (group == 0) {
                    out.append(input, start, end);
                } else {
                    int groupStart = matcher.start(group); // the capturing pass, once per match
                    if (groupStart >= 0) {
                        out.append(input, groupStart, matcher.end(group));
                    }
                }
            }
        }
    }

    private static int group(String name, Map<String, Integer> names) {
        if (name.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
            return name.length() > 8 ? -1 : Integer.parseInt(name);
        }
        return names.getOrDefault(name, -1);
    }
}

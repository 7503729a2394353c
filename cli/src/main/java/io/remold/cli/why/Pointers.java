package io.remold.cli.why;

import io.remold.cli.UsageException;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** FIELD as {@code why} takes it: a JSON pointer as it is, or a dotted path ({@code spec.containers[0].image}). */
final class Pointers {
    private static final Pattern STEP = Pattern.compile("([^.\\[\\]/~]+)|\\[(\\d+)]");

    private Pointers() {
    }

    /** The JSON pointer of {@code field}; a dotted path's keys may not hold '.', '/', '~', '[' or ']'. */
    static String parse(String field) {
        if (field.startsWith("/")) {
            return field;
        }
        var pointer = new StringBuilder();
        Matcher step = STEP.matcher(field);
        int at = 0;
        while (at < field.length()) {
            if (at > 0 && field.charAt(at) == '.') {
                at++;
            }
            if (!step.find(at) || step.start() != at) {
                throw new UsageException("FIELD \"" + field + "\": expected a JSON pointer (/metadata/labels/a) or a"
                        + " dotted path (metadata.labels.a, spec.containers[0].image); character " + (at + 1)
                        + " is not one");
            }
            pointer.append('/').append(step.group(1) != null ? step.group(1) : step.group(2));
            at = step.end();
        }
        if (pointer.isEmpty()) {
            throw new UsageException("FIELD is empty");
        }
        return pointer.toString();
    }
}

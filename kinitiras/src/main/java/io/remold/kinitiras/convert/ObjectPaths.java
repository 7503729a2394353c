package io.remold.kinitiras.convert;

import io.remold.engine.convert.CannotConvert;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The paths of templates' {@code valueRef} and {@code dataRef} that convert: {@code /a/b} paths of plain field names,
 * which kinitiras's CUE reads as the same members (it reads digits as an index, a dot as a further step, a path
 * without a slash as CUE text); and the fields that hold text on every object the API server admits.
 */
final class ObjectPaths {
    private static final Pattern PLAIN_PART = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");
    private static final Set<String> CUE_KEYWORDS = Set.of("for", "in", "if", "let", "true", "false", "null",
            "import", "package", "div", "mod", "quo", "rem");
    /** Fields the API server's ObjectMeta (and TypeMeta) hold as text, and its maps of text. */
    private static final Set<List<String>> TEXT_FIELDS = Set.of(List.of("apiVersion"), List.of("kind"),
            List.of("metadata", "name"), List.of("metadata", "namespace"), List.of("metadata", "generateName"));
    private static final Set<List<String>> TEXT_MAPS = Set.of(List.of("metadata", "labels"),
            List.of("metadata", "annotations"));

    private ObjectPaths() {
    }

    /** The member names of a {@code /a/b} path, or why it does not convert, naming {@code field}. */
    static List<String> steps(String path, String field) {
        if (!path.startsWith("/")) {
            throw new CannotConvert(field + ": \"" + path + "\" is read as CUE text; only /a/b paths are converted");
        }
        var steps = new ArrayList<String>();
        for (String part : path.substring(1).split("/", -1)) {
            if (!PLAIN_PART.matcher(part).matches() || CUE_KEYWORDS.contains(part)) {
                throw new CannotConvert(field + ": the part \"" + part + "\" of " + path + " is not a plain field"
                        + " name (kinitiras's CUE reads digits as an index, a dot as a further step)");
            }
            steps.add(part);
        }
        return List.copyOf(steps);
    }

    /** Whether the field holds text or nothing on every admitted object (ObjectMeta's text fields and maps). */
    static boolean holdsText(List<String> steps) {
        return TEXT_FIELDS.contains(steps) || steps.size() == 3 && TEXT_MAPS.contains(steps.subList(0, 2));
    }

    /** The names of the text fields, for a refusal. */
    static final String TEXT_FIELD_NAMES = "the name, namespace, generateName, labels, annotations, apiVersion and"
            + " kind";
}

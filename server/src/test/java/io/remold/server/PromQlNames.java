package io.remold.server;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression (or a Grafana {@code label_values(metric, label)} query) selects: what is
 * left once strings, label matchers, ranges, Grafana variables and grouping label lists are taken out, less
 * functions (a name before a parenthesis), numbers with their units, and operator keywords.
 */
final class PromQlNames {
    private static final Pattern STRING = Pattern.compile("\"(\\\\.|[^\"\\\\])*\"|'(\\\\.|[^'\\\\])*'|`[^`]*`");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^{}]*}");
    private static final Pattern RANGE = Pattern.compile("\\[[^\\[\\]]*]");
    private static final Pattern GRAFANA_VARIABLE = Pattern.compile("\\$\\{?\\w+}?");
    private static final Pattern LABEL_LIST =
            Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^()]*\\)");
    private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\(\\s*(.*?)\\s*(,[^,()]*)?\\)\\s*$",
            Pattern.DOTALL);
    private static final Pattern TOKEN = Pattern.compile(
            "(?<![\\w.])(?:\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?(?:ms|[smhdwy])*|\\d*\\.\\d+)|([a-zA-Z_:][\\w:]*)(\\s*\\()?");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan", "Inf", "NaN");

    private PromQlNames() {
    }

    static Set<String> of(String query) {
        Matcher values = LABEL_VALUES.matcher(query);
        String expression = values.matches() ? values.group(1) : query;
        String stripped = STRING.matcher(expression).replaceAll("\"\"");
        stripped = MATCHERS.matcher(stripped).replaceAll(" ");
        stripped = RANGE.matcher(stripped).replaceAll(" ");
        stripped = GRAFANA_VARIABLE.matcher(stripped).replaceAll(" ");
        stripped = LABEL_LIST.matcher(stripped).replaceAll(" ");
        var names = new LinkedHashSet<String>();
        Matcher token = TOKEN.matcher(stripped);
        while (token.find()) {
            String name = token.group(1);
            if (name != null && token.group(2) == null && !KEYWORDS.contains(name)) {
                names.add(name);
            }
        }
        return names;
    }
}

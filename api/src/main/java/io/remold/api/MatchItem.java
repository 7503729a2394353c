package io.remold.api;

import java.util.List;
import java.util.Objects;

/**
 * One condition of {@code spec.match}. With no matchValue, matchValues or matchRegex the item holds when the
 * query selects anything (or its single boolean result is true).
 */
public record MatchItem(String select, MatchFor matchFor, String matchValue, List<String> matchValues,
                        String matchRegex, boolean negate) {
    public MatchItem {
        Objects.requireNonNull(select, "select");
        matchFor = matchFor == null ? MatchFor.Any : matchFor;
        matchValues = matchValues == null ? List.of() : List.copyOf(matchValues);
    }

    /** A plain "select holds" item. */
    public static MatchItem of(String select) {
        return new MatchItem(select, MatchFor.Any, null, List.of(), null, false);
    }
}

package io.remold.cli.suite;

import java.util.ArrayList;
import java.util.List;

/**
 * A unified diff of two texts, line by line (a longest common subsequence), with three lines of context: how a
 * failed test shows an expected object beside the actual one.
 */
final class UnifiedDiff {
    private static final int CONTEXT = 3;
    /** Past this many cells the table of common lengths would be too big: both texts are shown whole instead. */
    private static final long MAX_CELLS = 4_000_000;

    /** One line of the diff: in both texts ({@code ' '}), only in the first ({@code '-'}) or the second ({@code '+'}). */
    private record Edit(char op, int from, int to) {
    }

    private UnifiedDiff() {
    }

    /** {@code --- from}, {@code +++ to}, then hunks; empty when the texts are equal. */
    static String of(String fromName, String from, String toName, String to) {
        List<String> a = from.lines().toList();
        List<String> b = to.lines().toList();
        if (a.equals(b)) {
            return "";
        }
        var out = new StringBuilder("--- ").append(fromName).append('\n').append("+++ ").append(toName).append('\n');
        if ((long) a.size() * b.size() > MAX_CELLS) {
            out.append("@@ -1,").append(a.size()).append(" +1,").append(b.size()).append(" @@\n");
            a.forEach(line -> out.append('-').append(line).append('\n'));
            b.forEach(line -> out.append('+').append(line).append('\n'));
            return out.toString();
        }
        List<Edit> edits = edits(a, b);
        int i = 0;
        while (i < edits.size()) {
            if (edits.get(i).op() == ' ') {
                i++;
                continue;
            }
            // a hunk: from CONTEXT lines before this change to CONTEXT lines after the last change near it
            int start = Math.max(0, i - CONTEXT);
            int end = i;
            int unchanged = 0;
            for (int k = i; k < edits.size() && unchanged <= 2 * CONTEXT; k++) {
                if (edits.get(k).op() == ' ') {
                    unchanged++;
                } else {
                    unchanged = 0;
                    end = k;
                }
            }
            end = Math.min(edits.size() - 1, end + CONTEXT);
            hunk(out, edits, start, end, a, b);
            i = end + 1;
        }
        return out.toString();
    }

    /** The lines of both texts in order, each marked as kept, removed or added. */
    private static List<Edit> edits(List<String> a, List<String> b) {
        int[][] common = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                common[i][j] = a.get(i).equals(b.get(j)) ? common[i + 1][j + 1] + 1
                        : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        var edits = new ArrayList<Edit>();
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                edits.add(new Edit(' ', i++, j++));
            } else if (i < a.size() && (j == b.size() || common[i + 1][j] >= common[i][j + 1])) {
                edits.add(new Edit('-', i++, j)); // removals first, as diff prints them
            } else {
                edits.add(new Edit('+', i, j++));
            }
        }
        return edits;
    }

    private static void hunk(StringBuilder out, List<Edit> edits, int start, int end, List<String> a,
                             List<String> b) {
        int fromStart = edits.get(start).from();
        int toStart = edits.get(start).to();
        int fromCount = 0;
        int toCount = 0;
        var lines = new StringBuilder();
        for (int k = start; k <= end; k++) {
            Edit edit = edits.get(k);
            switch (edit.op()) {
                case ' ' -> {
                    fromCount++;
                    toCount++;
                    lines.append(' ').append(a.get(edit.from())).append('\n');
                }
                case '-' -> {
                    fromCount++;
                    lines.append('-').append(a.get(edit.from())).append('\n');
                }
                default -> {
                    toCount++;
                    lines.append('+').append(b.get(edit.to())).append('\n');
                }
            }
        }
        out.append("@@ -").append(fromCount == 0 ? fromStart : fromStart + 1).append(',').append(fromCount)
                .append(" +").append(toCount == 0 ? toStart : toStart + 1).append(',').append(toCount).append(" @@\n")
                .append(lines);
    }
}

package io.remold.installer;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A text whose lines, and pieces of lines, are present under conditions on switches (numbered from 0): what a chart's
 * template makes of the bundle. It is built by comparing the bundle rendered with no switch on (the base) and with each
 * switch on: a base line a switch removes is kept while the switch is off; a line it adds is present while it is on; a
 * line it changes is compared word by word. Where switches interact (one adds a line another changes), the text is
 * corrected by comparing it with the bundle rendered with two or three switches on, under exactly those switches.
 */
final class GuardedText {
    /** A condition on the switches. */
    sealed interface Cond {
        boolean holds(BitSet on);

        /** Go template text, given each switch's own test. */
        String template(Function<Integer, String> test);
    }

    record On(int flag) implements Cond {
        public boolean holds(BitSet on) {
            return on.get(flag);
        }

        public String template(Function<Integer, String> test) {
            return test.apply(flag);
        }
    }

    record Not(Cond cond) implements Cond {
        public boolean holds(BitSet on) {
            return !cond.holds(on);
        }

        public String template(Function<Integer, String> test) {
            return "(not " + cond.template(test) + ")";
        }
    }

    record All(List<Cond> conds) implements Cond {
        public boolean holds(BitSet on) {
            return conds.stream().allMatch(c -> c.holds(on));
        }

        public String template(Function<Integer, String> test) {
            if (conds.isEmpty()) {
                return "true";
            }
            if (conds.size() == 1) {
                return conds.get(0).template(test);
            }
            return "(and " + String.join(" ", conds.stream().map(c -> c.template(test)).toList()) + ")";
        }
    }

    static final Cond ALWAYS = new All(List.of());

    static Cond and(Cond a, Cond b) {
        if (a.equals(ALWAYS)) {
            return b;
        }
        if (b.equals(ALWAYS)) {
            return a;
        }
        var conds = new ArrayList<Cond>();
        for (Cond c : List.of(a, b)) {
            if (c instanceof All all) {
                conds.addAll(all.conds());
            } else {
                conds.add(c);
            }
        }
        return new All(List.copyOf(conds));
    }

    static Cond allOn(BitSet flags) {
        return new All(flags.stream().<Cond>mapToObj(On::new).toList());
    }

    /** A piece of a line and when it is there. */
    record Piece(String text, Cond cond) {
    }

    /** A line, its pieces and when it is there. */
    record Line(List<Piece> pieces, Cond cond) {
        String text(BitSet on) {
            var sb = new StringBuilder();
            pieces.stream().filter(p -> p.cond().holds(on)).forEach(p -> sb.append(p.text()));
            return sb.toString();
        }
    }

    private final List<Line> lines;

    private GuardedText(List<Line> lines) {
        this.lines = lines;
    }

    List<Line> lines() {
        return lines;
    }

    /** The text with these switches on. */
    String text(BitSet on) {
        var sb = new StringBuilder();
        for (Line line : lines) {
            if (line.cond().holds(on)) {
                sb.append(line.text(on)).append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * @param render    the text with the given switches on
     * @param switches  how many switches there are
     * @param allowed   whether switches may be on together (the installer refuses some combinations)
     */
    static GuardedText of(Function<BitSet, String> render, int switches, java.util.function.Predicate<BitSet> allowed) {
        List<String> base = split(render.apply(new BitSet()));
        // per base line: its word-level edits per switch; per gap (before base line i): lines added, per switch
        var deletedBy = new ArrayList<List<Integer>>();
        var wordEdits = new ArrayList<List<WordEdit>>();
        var added = new ArrayList<List<Added>>();
        for (int i = 0; i <= base.size(); i++) {
            deletedBy.add(new ArrayList<>());
            wordEdits.add(new ArrayList<>());
            added.add(new ArrayList<>());
        }
        for (int s = 0; s < switches; s++) {
            BitSet on = new BitSet();
            on.set(s);
            List<String> variant = split(render.apply(on));
            for (Hunk hunk : lineDiff(base, variant)) {
                int[] pairs = pairs(base, variant, hunk);
                if (pairs != null) {
                    // lines changed in place, compared word by word; the lines between them added before them
                    int next = hunk.variantStart();
                    for (int k = 0; k <= pairs.length; k++) {
                        int until = k < pairs.length ? pairs[k] : hunk.variantEnd();
                        if (until > next) {
                            added.get(hunk.baseStart() + k).add(new Added(s, new On(s), variant.subList(next, until)));
                        }
                        if (k < pairs.length) {
                            wordEdits.get(hunk.baseStart() + k).add(new WordEdit(s, variant.get(pairs[k])));
                            next = pairs[k] + 1;
                        }
                    }
                    continue;
                }
                for (int k = hunk.baseStart(); k < hunk.baseEnd(); k++) {
                    deletedBy.get(k).add(s);
                }
                Cond cond = new On(s);
                // a line added inside a region another switch removes goes with that region
                if (hunk.baseStart() > 0 && hunk.baseEnd() < base.size()) {
                    for (int other : deletedBy.get(hunk.baseStart() - 1)) {
                        if (deletedBy.get(hunk.baseEnd()).contains(other) && other != s) {
                            cond = and(cond, new Not(new On(other)));
                        }
                    }
                }
                if (hunk.variantEnd() > hunk.variantStart()) {
                    added.get(hunk.baseStart()).add(new Added(s, cond,
                            variant.subList(hunk.variantStart(), hunk.variantEnd())));
                }
            }
        }
        var lines = new ArrayList<Line>();
        for (int i = 0; i <= base.size(); i++) {
            order(added.get(i), render);
            for (Added a : added.get(i)) {
                a.lines().forEach(text -> lines.add(new Line(List.of(new Piece(text, ALWAYS)), a.cond())));
            }
            if (i == base.size()) {
                break;
            }
            Cond cond = ALWAYS;
            for (int s : deletedBy.get(i)) {
                cond = and(cond, new Not(new On(s)));
            }
            lines.add(new Line(words(base.get(i), wordEdits.get(i)), cond));
        }
        var text = new GuardedText(lines);
        for (int size = 2; size <= 3; size++) {
            for (BitSet on : subsets(switches, size)) {
                if (allowed.test(on)) {
                    text.correct(on, split(render.apply(on)));
                }
            }
        }
        return text;
    }

    /** Makes the text with exactly these switches on equal to the expected lines, changing it under them only. */
    private void correct(BitSet on, List<String> expected) {
        var present = new ArrayList<Integer>();
        var actual = new ArrayList<String>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).cond().holds(on)) {
                present.add(i);
                actual.add(lines.get(i).text(on));
            }
        }
        List<Hunk> hunks = lineDiff(actual, expected);
        if (hunks.isEmpty()) {
            return;
        }
        Cond these = allOn(on);
        var inserts = new ArrayList<Object[]>();
        for (Hunk hunk : hunks) {
            for (int k = hunk.baseStart(); k < hunk.baseEnd(); k++) {
                int index = present.get(k);
                Line line = lines.get(index);
                lines.set(index, new Line(line.pieces(), and(line.cond(), new Not(these))));
            }
            // after the present line before the hunk (or at the top)
            int at = hunk.baseStart() == 0 ? 0 : present.get(hunk.baseStart() - 1) + 1;
            inserts.add(new Object[] {at, expected.subList(hunk.variantStart(), hunk.variantEnd())});
        }
        for (int k = inserts.size() - 1; k >= 0; k--) {
            int at = (int) inserts.get(k)[0];
            @SuppressWarnings("unchecked")
            List<String> texts = (List<String>) inserts.get(k)[1];
            // in the region of the line before: a line added where a switch removes its neighbours goes with them
            Cond cond = these;
            if (at > 0) {
                for (Cond c : conjuncts(lines.get(at - 1).cond())) {
                    if (c instanceof Not not && not.cond() instanceof On o && !on.get(o.flag())) {
                        cond = and(cond, c);
                    }
                }
            }
            Cond region = cond;
            var added = texts.stream().map(t -> new Line(List.of(new Piece(t, ALWAYS)), region)).toList();
            lines.addAll(at, added);
        }
    }

    /**
     * Lines several switches add at the same place, in the order the bundle writes them with both switches on
     * (an insertion sort: the order is only known pair by pair).
     */
    private static void order(List<Added> blocks, Function<BitSet, String> render) {
        for (int i = 1; i < blocks.size(); i++) {
            for (int j = i; j > 0 && after(blocks.get(j - 1), blocks.get(j), render); j--) {
                Added a = blocks.get(j - 1);
                blocks.set(j - 1, blocks.get(j));
                blocks.set(j, a);
            }
        }
    }

    private static boolean after(Added a, Added b, Function<BitSet, String> render) {
        if (a.flag() == b.flag()) {
            return false;
        }
        BitSet both = new BitSet();
        both.set(a.flag());
        both.set(b.flag());
        List<String> text = split(render.apply(both));
        int ia = java.util.Collections.indexOfSubList(text, a.lines());
        int ib = java.util.Collections.indexOfSubList(text, b.lines());
        return ia >= 0 && ib >= 0 && ia > ib;
    }

    private static List<Cond> conjuncts(Cond cond) {
        return cond instanceof All all ? all.conds() : List.of(cond);
    }

    /**
     * Line differences, document by document: YAML documents (from a {@code ---} line) are matched first, so that the
     * lines of two different objects are never taken for each other (and the comparison stays small).
     */
    static List<Hunk> lineDiff(List<String> a, List<String> b) {
        List<int[]> docsA = documents(a);
        List<int[]> docsB = documents(b);
        var hunks = new ArrayList<Hunk>();
        for (Hunk docs : diff(texts(a, docsA), texts(b, docsB))) {
            int n = docs.baseEnd() - docs.baseStart();
            boolean pairs = n == docs.variantEnd() - docs.variantStart();
            for (int k = 0; pairs && k < n; k++) {
                pairs = header(a, docsA.get(docs.baseStart() + k)).equals(header(b, docsB.get(docs.variantStart() + k)));
            }
            if (pairs) {
                for (int k = 0; k < n; k++) {
                    int[] da = docsA.get(docs.baseStart() + k);
                    int[] db = docsB.get(docs.variantStart() + k);
                    for (Hunk h : yamlDiff(a.subList(da[0], da[1]), b.subList(db[0], db[1]))) {
                        hunks.add(new Hunk(da[0] + h.baseStart(), da[0] + h.baseEnd(), db[0] + h.variantStart(),
                                db[0] + h.variantEnd()));
                    }
                }
            } else {
                int startA = docs.baseStart() < docsA.size() ? docsA.get(docs.baseStart())[0] : a.size();
                int endA = docs.baseEnd() > docs.baseStart() ? docsA.get(docs.baseEnd() - 1)[1] : startA;
                int startB = docs.variantStart() < docsB.size() ? docsB.get(docs.variantStart())[0] : b.size();
                int endB = docs.variantEnd() > docs.variantStart() ? docsB.get(docs.variantEnd() - 1)[1] : startB;
                for (Hunk h : yamlDiff(a.subList(startA, endA), b.subList(startB, endB))) {
                    hunks.add(new Hunk(startA + h.baseStart(), startA + h.baseEnd(), startB + h.variantStart(),
                            startB + h.variantEnd()));
                }
            }
        }
        return hunks;
    }

    /**
     * Differences of YAML lines node by node: a node is a line with the lines under it (deeper, or a key's list items);
     * nodes are matched whole, and two that start alike (the same key, or the same first line of a list item) are
     * compared inside. So a run of added lines is always whole nodes: an RBAC rule or a webhook, never the end of one
     * and the start of the next.
     */
    static List<Hunk> yamlDiff(List<String> a, List<String> b) {
        List<int[]> na = nodes(a);
        List<int[]> nb = nodes(b);
        var hunks = new ArrayList<Hunk>();
        for (Hunk h : diff(texts(a, na), texts(b, nb))) {
            int i = h.baseStart();
            int j = h.variantStart();
            while (i < h.baseEnd() || j < h.variantEnd()) {
                int pairJ = -1;
                if (i < h.baseEnd()) {
                    for (int k = j; k < h.variantEnd(); k++) {
                        if (a.get(na.get(i)[0]).equals(b.get(nb.get(k)[0]))) {
                            pairJ = k;
                            break;
                        }
                    }
                }
                if (pairJ < 0) {
                    // no node of b starts like this one: removed (or, when a is done, b's nodes added)
                    int endI = i < h.baseEnd() ? i + 1 : i;
                    int endJ = i < h.baseEnd() ? j : h.variantEnd();
                    hunks.add(new Hunk(start(na, i, a), start(na, endI, a), start(nb, j, b), start(nb, endJ, b)));
                    i = endI;
                    j = endJ;
                    continue;
                }
                if (pairJ > j) {
                    hunks.add(new Hunk(start(na, i, a), start(na, i, a), start(nb, j, b), start(nb, pairJ, b)));
                }
                int[] x = na.get(i);
                int[] y = nb.get(pairJ);
                for (Hunk inner : yamlDiff(a.subList(x[0] + 1, x[1]), b.subList(y[0] + 1, y[1]))) {
                    hunks.add(new Hunk(x[0] + 1 + inner.baseStart(), x[0] + 1 + inner.baseEnd(),
                            y[0] + 1 + inner.variantStart(), y[0] + 1 + inner.variantEnd()));
                }
                i++;
                j = pairJ + 1;
            }
        }
        return merged(hunks);
    }

    /** The text of each [start, end) span of the lines, for comparing spans whole. */
    private static List<String> texts(List<String> lines, List<int[]> spans) {
        return spans.stream().map(span -> String.join("\n", lines.subList(span[0], span[1]))).toList();
    }

    private static int start(List<int[]> nodes, int index, List<String> lines) {
        return index < nodes.size() ? nodes.get(index)[0] : lines.size();
    }

    /** Adjacent hunks as one. */
    private static List<Hunk> merged(List<Hunk> hunks) {
        var out = new ArrayList<Hunk>();
        for (Hunk h : hunks) {
            if (h.baseStart() == h.baseEnd() && h.variantStart() == h.variantEnd()) {
                continue;
            }
            Hunk last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && last.baseEnd() == h.baseStart() && last.variantEnd() == h.variantStart()) {
                out.set(out.size() - 1, new Hunk(last.baseStart(), h.baseEnd(), last.variantStart(), h.variantEnd()));
            } else {
                out.add(h);
            }
        }
        return out;
    }

    /** [start, end) of the top-level nodes of YAML lines. */
    private static List<int[]> nodes(List<String> lines) {
        var out = new ArrayList<int[]>();
        int i = 0;
        while (i < lines.size()) {
            String first = lines.get(i);
            int indent = indent(first);
            boolean key = !first.stripLeading().startsWith("- ") && first.endsWith(":");
            int j = i + 1;
            while (j < lines.size() && (indent(lines.get(j)) > indent
                    || key && indent(lines.get(j)) == indent && lines.get(j).stripLeading().startsWith("- "))) {
                j++;
            }
            out.add(new int[] {i, j});
            i = j;
        }
        return out;
    }

    private static int indent(String line) {
        return line.length() - line.stripLeading().length();
    }

    /** [start, end) of each document: from a {@code ---} line (or the top) to the next. */
    private static List<int[]> documents(List<String> lines) {
        var out = new ArrayList<int[]>();
        int start = 0;
        for (int i = 1; i <= lines.size(); i++) {
            if (i == lines.size() || lines.get(i).equals("---")) {
                out.add(new int[] {start, i});
                start = i;
            }
        }
        return lines.isEmpty() ? List.of() : out;
    }

    /** A document's kind and name, at the bundle's top level. */
    private static String header(List<String> lines, int[] doc) {
        var sb = new StringBuilder();
        for (String line : lines.subList(doc[0], doc[1])) {
            if (line.startsWith("kind: ") || line.startsWith("  name: ")) {
                sb.append(line).append('\n');
            }
        }
        return sb.toString();
    }

    static List<BitSet> subsets(int n, int size) {
        var out = new ArrayList<BitSet>();
        for (int mask = 0; mask < 1 << n; mask++) {
            if (Integer.bitCount(mask) == size) {
                out.add(BitSet.valueOf(new long[] {mask}));
            }
        }
        return out;
    }

    private record WordEdit(int flag, String line) {
    }

    private record Added(int flag, Cond cond, List<String> lines) {
    }

    record Hunk(int baseStart, int baseEnd, int variantStart, int variantEnd) {
    }

    private static final Pattern WORD = Pattern.compile("[A-Za-z0-9_.-]+|.");

    private static List<String> words(String line) {
        var out = new ArrayList<String>();
        Matcher m = WORD.matcher(line);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    /**
     * For each base line of the hunk, the variant line that changes it in place (the same indentation and key, or the
     * same list item start, in order), or null when one has none.
     */
    private static int[] pairs(List<String> base, List<String> variant, Hunk hunk) {
        int[] pairs = new int[hunk.baseEnd() - hunk.baseStart()];
        int next = hunk.variantStart();
        for (int k = 0; k < pairs.length; k++) {
            String lead = lead(base.get(hunk.baseStart() + k));
            while (next < hunk.variantEnd() && !lead(variant.get(next)).equals(lead)) {
                next++;
            }
            if (next == hunk.variantEnd()) {
                return null;
            }
            pairs[k] = next++;
        }
        return pairs.length == 0 ? null : pairs;
    }

    private static String lead(String line) {
        int colon = line.indexOf(": ");
        if (colon > 0 && !line.stripLeading().startsWith("- ")) {
            return line.substring(0, colon);
        }
        int eq = line.indexOf('=');
        return eq > 0 ? line.substring(0, eq) : line;
    }

    /** A base line's words, each kept unless a switch removes it, and the words switches add, under them. */
    private static List<Piece> words(String base, List<WordEdit> edits) {
        if (edits.isEmpty()) {
            return List.of(new Piece(base, ALWAYS));
        }
        List<String> baseWords = words(base);
        var deletedBy = new ArrayList<Cond>();
        var added = new ArrayList<List<Piece>>();
        for (int i = 0; i <= baseWords.size(); i++) {
            deletedBy.add(ALWAYS);
            added.add(new ArrayList<>());
        }
        for (WordEdit edit : edits) {
            List<String> variant = words(edit.line());
            for (Hunk hunk : diff(baseWords, variant)) {
                for (int k = hunk.baseStart(); k < hunk.baseEnd(); k++) {
                    deletedBy.set(k, and(deletedBy.get(k), new Not(new On(edit.flag()))));
                }
                added.get(hunk.baseStart()).add(new Piece(
                        String.join("", variant.subList(hunk.variantStart(), hunk.variantEnd())), new On(edit.flag())));
            }
        }
        var pieces = new ArrayList<Piece>();
        for (int i = 0; i <= baseWords.size(); i++) {
            pieces.addAll(added.get(i));
            if (i < baseWords.size()) {
                Cond cond = deletedBy.get(i);
                if (!pieces.isEmpty() && pieces.get(pieces.size() - 1).cond().equals(cond)) {
                    Piece last = pieces.remove(pieces.size() - 1);
                    pieces.add(new Piece(last.text() + baseWords.get(i), cond));
                } else {
                    pieces.add(new Piece(baseWords.get(i), cond));
                }
            }
        }
        return pieces;
    }

    static List<String> split(String text) {
        var lines = new ArrayList<>(List.of(text.split("\n", -1)));
        if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        return lines;
    }

    /** The differing runs between two sequences (a longest common subsequence). */
    static <T> List<Hunk> diff(List<T> a, List<T> b) {
        int n = a.size();
        int m = b.size();
        // common prefix and suffix first: the bundle's variants differ in a few places
        int pre = 0;
        while (pre < n && pre < m && a.get(pre).equals(b.get(pre))) {
            pre++;
        }
        int suf = 0;
        while (suf < n - pre && suf < m - pre && a.get(n - 1 - suf).equals(b.get(m - 1 - suf))) {
            suf++;
        }
        int rows = n - pre - suf;
        int cols = m - pre - suf;
        int[][] lcs = new int[rows + 1][cols + 1];
        for (int i = rows - 1; i >= 0; i--) {
            for (int j = cols - 1; j >= 0; j--) {
                lcs[i][j] = a.get(pre + i).equals(b.get(pre + j)) ? lcs[i + 1][j + 1] + 1
                        : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        var hunks = new ArrayList<Hunk>();
        int i = 0;
        int j = 0;
        int startI = -1;
        int startJ = -1;
        while (i < rows || j < cols) {
            if (i < rows && j < cols && a.get(pre + i).equals(b.get(pre + j))) {
                if (startI >= 0) {
                    hunks.add(new Hunk(pre + startI, pre + i, pre + startJ, pre + j));
                    startI = -1;
                }
                i++;
                j++;
                continue;
            }
            if (startI < 0) {
                startI = i;
                startJ = j;
            }
            if (j < cols && (i == rows || lcs[i][j + 1] >= lcs[i + 1][j])) {
                j++;
            } else {
                i++;
            }
        }
        if (startI >= 0) {
            hunks.add(new Hunk(pre + startI, pre + i, pre + startJ, pre + j));
        }
        return hunks;
    }
}

package io.remold.jsonpath;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

/**
 * RE2J patterns from rule text or from documents, refused before RE2J compiles them when they are too big. RE2J
 * expands counted repetitions into copies, so {@code ((a{1000}){1000}){1000}} (23 characters) asks for 10^9
 * instructions and exhausts any heap; and it simplifies and compiles nested groups recursively, so a thousand of
 * them overflow a 256 KiB thread stack. Public (besides {@link JsonPath}) because the modules above share it.
 */
public final class BoundedRegex {
    /** Longest pattern: 8 KiB holds an alternation of a few hundred namespace names or image registries. */
    static final int MAX_CHARS = 8 * 1024;
    /** Deepest nesting of groups: real patterns nest a handful, and RE2J overflows a 256 KiB stack at 1,000. */
    static final int MAX_NESTING = 100;
    /**
     * Most RE2J instructions, as estimated from the text (an upper bound of {@code Pattern.programSize()}): 20 times
     * a DNS name ({@code [a-z0-9]{1,253}} is about 500); a match costs time and memory in proportion to it.
     */
    static final int MAX_PROGRAM = 10_000;

    private BoundedRegex() {
    }

    /** {@code Pattern.compile(regex)}, or a PatternSyntaxException saying which bound the pattern exceeds. */
    public static Pattern compile(String regex) {
        if (regex.length() > MAX_CHARS) {
            throw tooBig("pattern is longer than " + MAX_CHARS + " characters", regex);
        }
        if (estimatedProgram(regex) > MAX_PROGRAM) {
            throw tooLarge(regex);
        }
        return Pattern.compile(regex);
    }

    /**
     * An upper bound of the RE2J instructions of the pattern; throws as {@link #compile} does when its groups nest
     * deeper than {@link #MAX_NESTING} or a group alone already exceeds {@link #MAX_PROGRAM}.
     */
    static long estimatedProgram(String regex) {
        return new Estimate(regex).size();
    }

    private static PatternSyntaxException tooLarge(String regex) {
        return tooBig("its program would have more than " + MAX_PROGRAM
                + " instructions (counted repetitions multiply the size of what they repeat)", regex);
    }

    private static PatternSyntaxException tooBig(String why, String regex) {
        return new PatternSyntaxException("regular expression too large: " + why, regex);
    }

    /**
     * Walks the pattern once, keeping per open group its estimated size and the size of its last atom (what a
     * repetition repeats), after RE2J's compiler: a character, class or assertion is one instruction, a capture
     * two, an alternative or a {@code *+?} one more, and {@code x{n,m}} n copies of x and m-n optional ones.
     * Malformed syntax is left to RE2J, which refuses it with its own message.
     */
    private static final class Estimate {
        private final String regex;
        private final long[] total = new long[MAX_NESTING + 1];
        private final long[] last = new long[MAX_NESTING + 1];
        private int depth;

        Estimate(String regex) {
            this.regex = regex;
        }

        long size() {
            int i = 0;
            while (i < regex.length()) {
                char c = regex.charAt(i);
                switch (c) {
                    case '\\' -> i = escape(i);
                    case '[' -> {
                        i = classEnd(i);
                        atom(1);
                    }
                    case '(' -> i = open(i);
                    case ')' -> {
                        i++;
                        if (depth > 0) {
                            long group = total[depth--] + 3; // the captures and the empty match of an empty group
                            atom(group);
                        }
                    }
                    case '|' -> {
                        i++;
                        add(2); // the alternation and an empty alternative's match
                        last[depth] = 0;
                    }
                    case '*', '+', '?' -> {
                        i++;
                        repeat(last[depth] + 1);
                    }
                    case '{' -> i = counted(i);
                    default -> {
                        i++;
                        atom(1);
                    }
                }
            }
            long size = 2; // the fail and match instructions
            for (int d = 0; d <= depth; d++) {
                size += total[d];
            }
            return size;
        }

        private void atom(long size) {
            add(size);
            last[depth] = size;
        }

        private void add(long size) {
            total[depth] += size;
            if (total[depth] > MAX_PROGRAM) {
                throw tooLarge(regex); // early, before a product can overflow
            }
        }

        /** The last atom becomes {@code size} instructions. */
        private void repeat(long size) {
            total[depth] -= last[depth];
            atom(size);
        }

        /** After {@code (}: a group, or a flag setting like {@code (?i)}, which is none. */
        private int open(int i) {
            int next = i + 1;
            if (regex.startsWith("(?", i)) {
                int end = next;
                while (end < regex.length() && ":)>".indexOf(regex.charAt(end)) < 0) {
                    end++;
                }
                if (end < regex.length() && regex.charAt(end) == ')') {
                    return end + 1;
                }
                next = Math.min(end + 1, regex.length());
            }
            if (depth == MAX_NESTING) {
                throw tooBig("groups are nested deeper than " + MAX_NESTING + " levels at offset " + i, regex);
            }
            depth++;
            total[depth] = 0;
            last[depth] = 0;
            return next;
        }

        /** After {@code \}: {@code \Q...\E} is its characters, {@code \p{...}} and {@code \x{...}} one atom. */
        private int escape(int i) {
            if (i + 1 >= regex.length()) {
                return i + 1;
            }
            char kind = regex.charAt(i + 1);
            if (kind == 'Q') {
                int end = regex.indexOf("\\E", i + 2);
                int stop = end < 0 ? regex.length() : end;
                atom(Math.max(1, stop - i - 2));
                return end < 0 ? stop : end + 2;
            }
            int next = i + 2;
            if ((kind == 'p' || kind == 'P' || kind == 'x') && next < regex.length() && regex.charAt(next) == '{') {
                int close = regex.indexOf('}', next);
                next = close < 0 ? regex.length() : close + 1;
            }
            atom(1);
            return next;
        }

        /** Just after the {@code ]} closing the class that starts at i ({@code []a]} and {@code [[:alpha:]]} included). */
        private int classEnd(int i) {
            int j = i + 1;
            if (j < regex.length() && regex.charAt(j) == '^') {
                j++;
            }
            if (j < regex.length() && regex.charAt(j) == ']') {
                j++;
            }
            while (j < regex.length() && regex.charAt(j) != ']') {
                if (regex.charAt(j) == '\\') {
                    j++;
                } else if (regex.startsWith("[:", j)) {
                    int close = regex.indexOf(":]", j + 2);
                    j = close < 0 ? j : close + 1;
                }
                j++;
            }
            return Math.min(j + 1, regex.length());
        }

        /** {@code {n}}, {@code {n,}} or {@code {n,m}} repeat the last atom; any other {@code {} is a literal. */
        private int counted(int i) {
            int j = i + 1;
            int digitsStart = j;
            while (j < regex.length() && Character.isDigit(regex.charAt(j))) {
                j++;
            }
            if (j == digitsStart || j >= regex.length()) {
                atom(1);
                return i + 1;
            }
            long min = count(digitsStart, j);
            long max = min;
            if (regex.charAt(j) == ',') {
                int maxStart = ++j;
                while (j < regex.length() && Character.isDigit(regex.charAt(j))) {
                    j++;
                }
                max = j == maxStart ? -1 : count(maxStart, j);
            }
            if (j >= regex.length() || regex.charAt(j) != '}') {
                atom(1);
                return i + 1;
            }
            long x = last[depth];
            // x{n} is n copies, x{n,} n copies and a loop, x{n,m} n copies and m-n optional ones
            repeat(max < 0 ? min * x + x + 1 : min * x + Math.max(0, max - min) * (x + 1) + 1);
            return j + 1;
        }

        /** The repeat count written at [from, to), capped just above RE2J's own limit of 1,000. */
        private long count(int from, int to) {
            return to - from > 4 ? 1001 : Math.min(1001, Long.parseLong(regex.substring(from, to)));
        }
    }
}

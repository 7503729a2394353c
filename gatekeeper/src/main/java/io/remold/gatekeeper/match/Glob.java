package io.remold.gatekeeper.match;

/**
 * A name or namespace in a {@code match}: exact, or a glob with {@code *} at its start ({@code *-system}: suffix), its
 * end ({@code kube-*}: prefix) or both ({@code *sys*}: substring). A {@code *} elsewhere is a literal character.
 */
record Glob(String pattern) {
    private static final char STAR = '*';

    /**
     * Parses a glob, refusing what the CRD's pattern {@code ^\*?[-:a-z0-9]*\*?$} refuses; {@code field} names it in
     * the error.
     */
    static Glob parse(String pattern, String field) {
        int start = pattern.startsWith("*") ? 1 : 0;
        int end = pattern.length() > start && pattern.endsWith("*") ? pattern.length() - 1 : pattern.length();
        for (int i = start; i < end; i++) {
            char c = pattern.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == ':')) {
                throw new InvalidMatchException(field,
                        "\"" + pattern + "\" should match '^\\*?[-:a-z0-9]*\\*?$'");
            }
        }
        return new Glob(pattern);
    }

    boolean matches(String candidate) {
        boolean leading = leadingStar();
        boolean trailing = trailingStar();
        if (leading && trailing) {
            return candidate.contains(core());
        }
        if (leading) {
            return candidate.endsWith(pattern.substring(1));
        }
        if (trailing) {
            return candidate.startsWith(pattern.substring(0, pattern.length() - 1));
        }
        return pattern.equals(candidate);
    }

    /**
     * Whether an object created with this {@code generateName} is bound to get a matching name: only a prefix or a
     * substring glob can tell before the API server appends the random suffix.
     */
    boolean matchesGenerateName(String generateName) {
        boolean leading = leadingStar();
        boolean trailing = trailingStar();
        if (leading && trailing) {
            return generateName.contains(core());
        }
        if (trailing) {
            return generateName.startsWith(pattern.substring(0, pattern.length() - 1));
        }
        return false;
    }

    private boolean leadingStar() {
        return !pattern.isEmpty() && pattern.charAt(0) == STAR;
    }

    private boolean trailingStar() {
        return !pattern.isEmpty() && pattern.charAt(pattern.length() - 1) == STAR;
    }

    /** The pattern without its leading and trailing stars ({@code *} alone: empty, matching everything). */
    private String core() {
        return pattern.length() < 2 ? "" : pattern.substring(1, pattern.length() - 1);
    }
}

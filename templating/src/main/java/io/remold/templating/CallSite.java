package io.remold.templating;

import io.remold.jsonpath.BoundedMemo;
import jakarta.json.JsonValue;
import java.util.List;

/**
 * What one compiled function call keeps between renders: a replacement prepared when the template was compiled,
 * and a small memo of the results of the regular expression functions, which are pure and see the same image
 * names and labels over and over. The memo is a {@link BoundedMemo} per call site; inputs longer than
 * {@link #MAX_KEY_CHARS} and results longer than {@link #MAX_RESULT_CHARS} are not memoized. Thread-safe.
 */
final class CallSite {
    static final int MAX_ENTRIES = 1024;
    static final int MAX_KEY_CHARS = 1024;
    static final int MAX_RESULT_CHARS = 4096;
    static final int MAX_TOTAL_CHARS = 256 * 1024;

    private static final CallSite NONE = new CallSite(false, null);

    /** Null when the call is not memoized. */
    private final BoundedMemo<Object, JsonValue> memo;
    private final GoReplacement replacement;

    private CallSite(boolean memoize, GoReplacement replacement) {
        this.memo = memoize ? new BoundedMemo<>(MAX_ENTRIES, MAX_TOTAL_CHARS) : null;
        this.replacement = replacement;
    }

    /** The site of a call to {@code function} with these (parsed) arguments. */
    static CallSite of(Function function, List<Expression> args) {
        if (function == Function.REGEX_REPLACE_ALL) {
            GoReplacement prepared = null;
            if (args.get(0) instanceof Expression.RegexLiteral regex && args.get(1) instanceof Expression.Literal literal) {
                prepared = GoReplacement.compile(TextValues.text(literal.value()), regex.pattern());
            }
            return new CallSite(true, prepared);
        }
        if (function == Function.REGEX_FIND) {
            return new CallSite(true, null);
        }
        return NONE;
    }

    /** The replacement of a {@code regexReplaceAll} whose regex and replacement are literals, or null. */
    GoReplacement replacement() {
        return replacement;
    }

    /**
     * The memo key for these argument texts (the last is the input), or null when the call is not memoized. When
     * every argument but the input is a literal, the input alone is the key.
     */
    Object key(boolean literalArguments, String... texts) {
        if (memo == null) {
            return null;
        }
        int length = 0;
        for (String text : texts) {
            length += text.length();
        }
        if (length > MAX_KEY_CHARS) {
            return null;
        }
        return literalArguments ? texts[texts.length - 1] : List.of(texts);
    }

    /** The input alone as the key (all other arguments are literals), or null when it is too long or not memoized. */
    Object key(String input) {
        return memo == null || input.length() > MAX_KEY_CHARS ? null : input;
    }

    JsonValue get(Object key) {
        return key == null ? null : memo.get(key);
    }

    /** Remembers a result; the memo clears itself first when it is full. */
    void put(Object key, JsonValue result, int resultChars) {
        if (key == null || resultChars > MAX_RESULT_CHARS) {
            return;
        }
        memo.put(key, result, resultChars + (key instanceof String input ? input.length() : MAX_KEY_CHARS));
    }

    /** For tests. */
    int size() {
        return memo == null ? 0 : memo.size();
    }
}

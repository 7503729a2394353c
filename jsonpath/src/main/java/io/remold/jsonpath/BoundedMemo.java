package io.remold.jsonpath;

import com.google.re2j.Pattern;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A small memo of a pure function's results, for regular expressions that see the same image names, labels and
 * namespaces over and over: JsonPath's {@code =~} filters, rule match items and template functions. It is bounded
 * in entries and in characters and simply cleared when full, which is cheaper than tracking recency and enough
 * when the inputs repeat. Thread-safe. Public (besides {@link JsonPath}) because the modules above share it.
 *
 * @param <K> the key: the input text, or whatever the caller makes of several
 * @param <V> the result
 */
public final class BoundedMemo<K, V> {
    // A find memo holds only booleans for short inputs (images, label values, namespaces), and there is one per
    // matchRegex and =~ literal, so it is kept small: at most about 50 KB each.
    static final int FIND_ENTRIES = 256;
    static final int FIND_CHARS = 16 * 1024;
    static final int FIND_MAX_INPUT_CHARS = 256;

    private final ConcurrentHashMap<K, V> memo = new ConcurrentHashMap<>();
    private final AtomicInteger chars = new AtomicInteger();
    private final int maxEntries;
    private final int maxChars;

    /** A memo of at most {@code maxEntries} results costing at most {@code maxChars} characters in all. */
    public BoundedMemo(int maxEntries, int maxChars) {
        this.maxEntries = maxEntries;
        this.maxChars = maxChars;
    }

    /**
     * {@code pattern.matcher(input).find()}, memoized per input in a memo of its own; inputs longer than 256
     * characters are matched every time. Only for a pattern compiled once and used many times.
     */
    public static Predicate<String> find(Pattern pattern) {
        return new MemoizedFind(pattern, new BoundedMemo<>(FIND_ENTRIES, FIND_CHARS));
    }

    record MemoizedFind(Pattern pattern, BoundedMemo<String, Boolean> memo) implements Predicate<String> {
        @Override
        public boolean test(String input) {
            if (input.length() > FIND_MAX_INPUT_CHARS) {
                return pattern.matcher(input).find();
            }
            Boolean found = memo.get(input);
            if (found == null) {
                found = pattern.matcher(input).find();
                memo.put(input, found, input.length());
            }
            return found;
        }
    }

    /** The remembered result, or null; a null key (one the caller chose not to memoize) is never remembered. */
    public V get(K key) {
        return key == null ? null : memo.get(key);
    }

    /**
     * Remembers a result that costs {@code chars} characters (key and result); clears the memo first when it is
     * full. A null key is ignored.
     */
    public void put(K key, V result, int chars) {
        if (key == null) {
            return;
        }
        if (memo.size() >= maxEntries || this.chars.addAndGet(chars) > maxChars) {
            memo.clear();
            this.chars.set(chars);
        }
        memo.put(key, result);
    }

    /** How many results are remembered. */
    public int size() {
        return memo.size();
    }
}

package io.remold.jsonpath;

/**
 * The expression is valid but cannot be evaluated against the given document (e.g. {@code &&} on a non-boolean), or
 * evaluating it would exceed a resource bound ({@link #exceedsLimit()}): a caller that treats a failed query as "no
 * match" must not do so for a bound, or a large enough object would slip past a rule.
 */
public final class JsonPathEvaluationException extends JsonPathException {
    private final boolean exceedsLimit;

    JsonPathEvaluationException(String message, String expression, int position) {
        this(message, expression, position, false);
    }

    JsonPathEvaluationException(String message, String expression, int position, boolean exceedsLimit) {
        super(message, expression, position);
        this.exceedsLimit = exceedsLimit;
    }

    /**
     * A bound a caller applies to what an evaluation selected (the engine's on the text it compares): it stops the
     * rule like the evaluation's own bounds do.
     */
    public static JsonPathEvaluationException exceeding(String message, String expression) {
        return new JsonPathEvaluationException(message, expression, 0, true);
    }

    /** Whether the evaluation stopped at a resource bound rather than at a fault of the document. */
    public boolean exceedsLimit() {
        return exceedsLimit;
    }
}

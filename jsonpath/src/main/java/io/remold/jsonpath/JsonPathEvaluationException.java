package io.remold.jsonpath;

/** The expression is valid but cannot be evaluated against the given document (e.g. {@code &&} on a non-boolean). */
public final class JsonPathEvaluationException extends JsonPathException {
    JsonPathEvaluationException(String message, String expression, int position) {
        super(message, expression, position);
    }
}

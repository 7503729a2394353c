package io.remold.jsonpath;

/** The expression is not valid in Remold's JSONPath dialect. */
public final class JsonPathSyntaxException extends JsonPathException {
    JsonPathSyntaxException(String message, String expression, int position) {
        super(message, expression, position);
    }
}

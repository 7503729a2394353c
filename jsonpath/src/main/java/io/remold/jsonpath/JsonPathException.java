package io.remold.jsonpath;

/** A JSONPath expression that cannot be compiled or evaluated; names the expression and the 0-based position. */
public class JsonPathException extends RuntimeException {
    private final String expression;
    private final int position;

    JsonPathException(String message, String expression, int position) {
        super(message + " at " + position + " in '" + expression + "'");
        this.expression = expression;
        this.position = position;
    }

    public String expression() {
        return expression;
    }

    /** 0-based offset in {@link #expression()} where the problem was found. */
    public int position() {
        return position;
    }
}

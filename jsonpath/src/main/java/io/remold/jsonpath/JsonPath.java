package io.remold.jsonpath;

import jakarta.json.JsonValue;
import java.util.List;
import java.util.Optional;

/** A compiled JSONPath expression in KubeMod's dialect. Immutable and thread-safe: compile once, evaluate many times. */
public final class JsonPath {
    private final String expression;

    private JsonPath(String expression) {
        this.expression = expression;
    }

    /** @throws JsonPathSyntaxException if the expression is not valid */
    public static JsonPath compile(String expression) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    public String expression() {
        return expression;
    }

    /**
     * Results in document order; undefined results are dropped. A boolean expression yields one Selection whose
     * value is JsonValue.TRUE/FALSE with an empty path.
     *
     * @throws JsonPathEvaluationException if the expression cannot be evaluated against this document
     */
    public List<Selection> select(JsonValue document) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Evaluates to a single value (for expressions); Optional.empty() is KubeMod's undefined. */
    public Optional<JsonValue> evaluate(JsonValue document) {
        throw new UnsupportedOperationException("not implemented yet");
    }
}

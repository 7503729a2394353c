package io.remold.jsonpath;

import io.remold.jsonpath.Ast.Expr;
import io.remold.jsonpath.Ast.Path;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A compiled JSONPath expression in KubeMod's dialect (see docs/jsonpath.md). Immutable and thread-safe: compile
 * once, evaluate many times.
 */
public final class JsonPath {
    private final String expression;
    private final Expr tree;

    private JsonPath(String expression, Expr tree) {
        this.expression = expression;
        this.tree = tree;
    }

    /** @throws JsonPathSyntaxException if the expression is not valid, naming the position */
    public static JsonPath compile(String expression) {
        Objects.requireNonNull(expression, "expression");
        return new JsonPath(expression, Parser.parse(expression));
    }

    public String expression() {
        return expression;
    }

    /**
     * The equality of {@code ==} and {@code in}: deep, numbers by value ({@code 1} equals {@code 1.0}), object members
     * in any order. Exposed so that operations which compare values outside a query agree with the queries.
     */
    public static boolean sameValue(JsonValue a, JsonValue b) {
        return Values.deepEquals(a, b);
    }

    /**
     * Results in document order; undefined results are dropped. A boolean expression yields one Selection whose
     * value is JsonValue.TRUE/FALSE with an empty path.
     *
     * @throws JsonPathEvaluationException if the expression cannot be evaluated against this document
     */
    public List<Selection> select(JsonValue document) {
        Objects.requireNonNull(document, "document");
        Evaluator evaluator = new Evaluator(expression, document);
        if (tree instanceof Path path) {
            // A loop, not a stream: every match item of every candidate rule selects, and the pipeline cost more
            // than the selection of a plain path.
            List<Evaluator.Node> nodes = evaluator.selections(path);
            var selections = new Selection[nodes.size()];
            for (int i = 0; i < selections.length; i++) {
                Evaluator.Node node = nodes.get(i);
                selections[i] = new Selection(node.value(), node.path().toList(), node.captures().toList());
            }
            return List.of(selections);
        }
        JsonValue value = evaluator.eval(tree, document);
        return value == null ? List.of() : List.of(new Selection(value, List.of(), List.of()));
    }

    /**
     * Evaluates to a single value (for expressions); Optional.empty() is KubeMod's undefined. A path that can select
     * several nodes ({@code [*]}, filters, unions, slices, {@code ..}) evaluates to the array of its results.
     *
     * @throws JsonPathEvaluationException if the expression cannot be evaluated against this document
     */
    public Optional<JsonValue> evaluate(JsonValue document) {
        Objects.requireNonNull(document, "document");
        return Optional.ofNullable(new Evaluator(expression, document).eval(tree, document));
    }

    @Override
    public String toString() {
        return expression;
    }
}

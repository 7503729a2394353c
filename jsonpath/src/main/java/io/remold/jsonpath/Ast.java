package io.remold.jsonpath;

import jakarta.json.JsonValue;
import java.util.List;
import java.util.function.Predicate;

/** The compiled syntax tree: immutable records, shared by all evaluations. */
final class Ast {
    private Ast() {
    }

    /** An expression; {@code position} is its 0-based offset in the source, used in evaluation errors. */
    sealed interface Expr permits Literal, Path, ArrayLiteral, Unary, Binary, RegexMatch, Call {
        int position();
    }

    record Literal(JsonValue value, int position) implements Expr {
    }

    /**
     * A path from {@code $} (fromRoot) or {@code @}. It is multi-valued when a step can select more than one node;
     * inside an expression a multi-valued path evaluates to the array of its results.
     */
    record Path(boolean fromRoot, List<Step> steps, boolean multi, int position) implements Expr {
    }

    record ArrayLiteral(List<Expr> elements, int position) implements Expr {
    }

    enum UnaryOp { NOT, NEGATE }

    record Unary(UnaryOp op, Expr operand, int position) implements Expr {
    }

    enum BinaryOp {
        OR("||"), AND("&&"), EQ("=="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">="), IN("in"),
        ADD("+"), SUB("-"), MUL("*"), DIV("/"), MOD("%");

        final String symbol;

        BinaryOp(String symbol) {
            this.symbol = symbol;
        }
    }

    record Binary(BinaryOp op, Expr left, Expr right, int position) implements Expr {
    }

    /**
     * {@code =~} / {@code !~}; {@code literalFind} is the (memoized) find of the pattern compiled at compile time,
     * or null when the pattern is computed from the document.
     */
    record RegexMatch(Expr subject, Expr pattern, Predicate<String> literalFind, boolean negated, int position)
            implements Expr {
    }

    enum Function {
        IS_DEFINED("isDefined"), IS_UNDEFINED("isUndefined"), IS_EMPTY("isEmpty"), IS_NOT_EMPTY("isNotEmpty"),
        LENGTH("length");

        final String functionName;

        Function(String functionName) {
            this.functionName = functionName;
        }
    }

    record Call(Function function, Expr argument, int position) implements Expr {
    }

    /** One step of a path. Steps that may select several nodes record a capture per selected node. */
    sealed interface Step permits Member, Index, DynamicKey, Wildcard, Union, Slice, Filter, Descendants, Script {
    }

    /** {@code .name} or {@code ["name"]}. */
    record Member(String name) implements Step {
    }

    /** {@code [n]}: an array index (negative counts from the end) or, on an object, the member named n. */
    record Index(int index) implements Step {
    }

    /** {@code [expr]}: the member or index named by an expression evaluated with {@code @} = the current node. */
    record DynamicKey(Expr key) implements Step {
    }

    /** {@code .*} or {@code [*]}. */
    record Wildcard() implements Step {
    }

    /** {@code [a, b, ...]}: each entry is a {@link Member} or an {@link Index}, selected in the order written. */
    record Union(List<Step> entries) implements Step {
    }

    /** {@code [start:end:step]}; null bounds are open. */
    record Slice(Integer start, Integer end, int step) implements Step {
    }

    /** {@code [? expr]}: the members or elements for which expr is true. */
    record Filter(Expr predicate) implements Step {
    }

    /** {@code ..}: the current node and all its descendants, in document order; the next step applies to each. */
    record Descendants() implements Step {
    }

    /** {@code (expr)} after a path: replaces each node by the value of expr evaluated with {@code @} = that node. */
    record Script(Expr script) implements Step {
    }
}

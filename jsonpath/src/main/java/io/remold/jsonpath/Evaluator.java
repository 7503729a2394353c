package io.remold.jsonpath;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.remold.jsonpath.Ast.ArrayLiteral;
import io.remold.jsonpath.Ast.Binary;
import io.remold.jsonpath.Ast.BinaryOp;
import io.remold.jsonpath.Ast.Call;
import io.remold.jsonpath.Ast.Descendants;
import io.remold.jsonpath.Ast.DynamicKey;
import io.remold.jsonpath.Ast.Expr;
import io.remold.jsonpath.Ast.Filter;
import io.remold.jsonpath.Ast.Index;
import io.remold.jsonpath.Ast.Literal;
import io.remold.jsonpath.Ast.Member;
import io.remold.jsonpath.Ast.Path;
import io.remold.jsonpath.Ast.RegexMatch;
import io.remold.jsonpath.Ast.Script;
import io.remold.jsonpath.Ast.Slice;
import io.remold.jsonpath.Ast.Step;
import io.remold.jsonpath.Ast.Unary;
import io.remold.jsonpath.Ast.Union;
import io.remold.jsonpath.Ast.Wildcard;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One evaluation of a compiled expression against one document. Not shared between threads; the tree it walks is.
 * Internally Java {@code null} stands for KubeMod's undefined.
 */
final class Evaluator {
    /** Upper bound on the nodes one evaluation may visit; stops e.g. chained recursive descents on big documents. */
    static final int MAX_NODES = 1_000_000;
    /**
     * Most results of one {@link JsonPath#select}: they are held at once, each with its path and captures (a few
     * hundred bytes), so this keeps a select's results to tens of megabytes; a Pod has tens of containers, a big
     * ConfigMap some thousands of keys.
     */
    static final int MAX_SELECTIONS = 100_000;
    /**
     * Deepest level {@code ..} descends to, one stack frame each: as deep as the json module parses documents
     * (its TreeParser.MAX_DEPTH), so only a document made deeper by patches can exceed it.
     */
    static final int MAX_DESCENT_DEPTH = 1000;

    private final String expression;
    private final JsonValue root;
    private int visited;

    Evaluator(String expression, JsonValue root) {
        this.expression = expression;
        this.root = root;
    }

    /** A selected node with its path from the start of the path and the captures taken on the way. */
    record Node(JsonValue value, Chain path, Chain captures) {
    }

    /** An immutable list that shares its prefix with the list it was extended from. */
    record Chain(Chain parent, Object last, int size) {
        static final Chain EMPTY = new Chain(null, null, 0);

        Chain plus(Object key) {
            return new Chain(this, key, size + 1);
        }

        List<Object> toList() {
            Object[] items = new Object[size];
            for (Chain c = this; c.size > 0; c = c.parent) {
                items[c.size - 1] = c.last;
            }
            return List.of(items);
        }
    }

    // ---- paths ----

    /** The results of a whole-expression path, at most {@link #MAX_SELECTIONS}. */
    List<Node> selections(Path path) {
        List<Node> nodes = select(path, root);
        if (nodes.size() > MAX_SELECTIONS) {
            throw limit("selects " + nodes.size() + " nodes, more than " + MAX_SELECTIONS, path.position());
        }
        return nodes;
    }

    List<Node> select(Path path, JsonValue current) {
        List<Node> nodes = List.of(new Node(path.fromRoot() ? root : current, Chain.EMPTY, Chain.EMPTY));
        List<Step> steps = path.steps();
        for (int i = 0; i < steps.size() && !nodes.isEmpty(); i++) {
            Step step = steps.get(i);
            List<Node> next = new ArrayList<>();
            for (Node node : nodes) {
                apply(step, node, next, path);
            }
            nodes = next;
        }
        return nodes;
    }

    private void apply(Step step, Node node, List<Node> out, Path path) {
        JsonValue value = node.value();
        switch (step) {
            case Member member -> member(node, member.name(), false, out, path);
            case Index index -> index(node, index.index(), false, out, path);
            case DynamicKey dynamic -> {
                JsonValue key = eval(dynamic.key(), value);
                if (key instanceof JsonString name) {
                    member(node, name.getString(), false, out, path);
                } else if (key instanceof JsonNumber number && number.isIntegral()) {
                    index(node, number.bigDecimalValue().intValue(), false, out, path);
                }
            }
            case Wildcard ignored -> children(node, null, out, path);
            case Filter filter -> children(node, filter.predicate(), out, path);
            case Union union -> {
                for (Step entry : union.entries()) {
                    if (entry instanceof Member member) {
                        member(node, member.name(), true, out, path);
                    } else {
                        index(node, ((Index) entry).index(), true, out, path);
                    }
                }
            }
            case Slice slice -> slice(node, slice, out, path);
            case Descendants ignored -> descendants(node, out, path, 0);
            case Script script -> {
                JsonValue result = eval(script.script(), value);
                if (result != null) {
                    add(out, new Node(result, node.path(), node.captures()), path);
                }
            }
        }
    }

    private void member(Node node, String name, boolean capture, List<Node> out, Path path) {
        if (node.value() instanceof JsonObject object) {
            JsonValue child = object.get(name);
            if (child != null) {
                add(out, child(node, child, name, capture), path);
            }
        } else if (node.value() instanceof JsonArray && isCanonicalIndex(name)) {
            index(node, Integer.parseInt(name), capture, out, path);
        }
    }

    private void index(Node node, int index, boolean capture, List<Node> out, Path path) {
        if (node.value() instanceof JsonArray array) {
            int actual = index < 0 ? array.size() + index : index;
            if (actual >= 0 && actual < array.size()) {
                add(out, child(node, array.get(actual), actual, capture), path);
            }
        } else if (node.value() instanceof JsonObject) {
            member(node, Integer.toString(index), capture, out, path);
        }
    }

    /** All members or elements of the node (those satisfying the filter when there is one), each captured. */
    private void children(Node node, Expr filter, List<Node> out, Path path) {
        if (node.value() instanceof JsonObject object) {
            for (Map.Entry<String, JsonValue> member : object.entrySet()) {
                if (filter == null || accepts(filter, member.getValue())) {
                    add(out, child(node, member.getValue(), member.getKey(), true), path);
                }
            }
        } else if (node.value() instanceof JsonArray array) {
            for (int i = 0; i < array.size(); i++) {
                if (filter == null || accepts(filter, array.get(i))) {
                    add(out, child(node, array.get(i), i, true), path);
                }
            }
        }
    }

    /** Like KubeMod, a filter that fails or does not yield true drops the element instead of failing the path. */
    private boolean accepts(Expr filter, JsonValue element) {
        try {
            JsonValue verdict = eval(filter, element);
            return verdict != null && verdict.getValueType() == JsonValue.ValueType.TRUE;
        } catch (JsonPathEvaluationException e) {
            if (e.exceedsLimit()) {
                throw e; // a bound stops the whole evaluation instead of dropping an element
            }
            return false;
        }
    }

    private void slice(Node node, Slice slice, List<Node> out, Path path) {
        if (!(node.value() instanceof JsonArray array)) {
            return;
        }
        int size = array.size();
        int start = bound(slice.start(), 0, size);
        int end = bound(slice.end(), size, size);
        if (slice.step() > 0) {
            for (int i = start; i < end; i += slice.step()) {
                add(out, child(node, array.get(i), i, true), path);
            }
        } else {
            // A negative step walks the same range [start, end) backwards.
            for (int i = end - 1; i >= start; i += slice.step()) {
                add(out, child(node, array.get(i), i, true), path);
            }
        }
    }

    private static int bound(Integer given, int fallback, int size) {
        if (given == null) {
            return fallback;
        }
        int actual = given < 0 ? size + given : given;
        return Math.max(0, Math.min(actual, size));
    }

    /** The node itself and every node below it, in document order; each key descended is a capture. */
    private void descendants(Node node, List<Node> out, Path path, int depth) {
        if (depth > MAX_DESCENT_DEPTH) {
            throw limit("'..' descends deeper than " + MAX_DESCENT_DEPTH + " levels", path.position());
        }
        add(out, node, path);
        if (node.value() instanceof JsonObject object) {
            for (Map.Entry<String, JsonValue> member : object.entrySet()) {
                descendants(child(node, member.getValue(), member.getKey(), true), out, path, depth + 1);
            }
        } else if (node.value() instanceof JsonArray array) {
            for (int i = 0; i < array.size(); i++) {
                descendants(child(node, array.get(i), i, true), out, path, depth + 1);
            }
        }
    }

    private static Node child(Node parent, JsonValue value, Object key, boolean capture) {
        return new Node(value, parent.path().plus(key), capture ? parent.captures().plus(key) : parent.captures());
    }

    private void add(List<Node> out, Node node, Path path) {
        if (++visited > MAX_NODES) {
            throw limit("selection visits more than " + MAX_NODES + " nodes", path.position());
        }
        out.add(node);
    }

    private static boolean isCanonicalIndex(String name) {
        if (name.isEmpty() || name.length() > 9 || (name.length() > 1 && name.charAt(0) == '0')) {
            return false;
        }
        return name.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    // ---- expressions ----

    /** The value of the expression with {@code @} bound to current; null when undefined. */
    JsonValue eval(Expr expr, JsonValue current) {
        return switch (expr) {
            case Literal literal -> literal.value();
            case Path path -> pathValue(path, current);
            case ArrayLiteral array -> {
                JsonArrayBuilder builder = Values.PROVIDER.createArrayBuilder();
                for (Expr element : array.elements()) {
                    JsonValue value = eval(element, current);
                    if (value != null) {
                        builder.add(value);
                    }
                }
                yield builder.build();
            }
            case Unary unary -> unary(unary, current);
            case Binary binary -> binary(binary, current);
            case RegexMatch match -> regexMatch(match, current);
            case Call call -> call(call, current);
        };
    }

    /** A single-valued path yields its value or undefined, a multi-valued one the array of its results. */
    JsonValue pathValue(Path path, JsonValue current) {
        List<Node> nodes = select(path, current);
        if (!path.multi()) {
            return nodes.isEmpty() ? null : nodes.get(0).value();
        }
        JsonArrayBuilder builder = Values.PROVIDER.createArrayBuilder();
        nodes.forEach(node -> builder.add(node.value()));
        return builder.build();
    }

    private JsonValue unary(Unary unary, JsonValue current) {
        JsonValue operand = eval(unary.operand(), current);
        return switch (unary.op()) {
            case NOT -> Values.bool(!requireBoolean(operand, "!", unary.position()));
            case NEGATE -> {
                if (operand == null) {
                    yield null;
                }
                yield Values.number(requireNumber(operand, "-", unary.position()).negate());
            }
        };
    }

    private JsonValue binary(Binary binary, JsonValue current) {
        BinaryOp op = binary.op();
        JsonValue left = eval(binary.left(), current);
        if (op == BinaryOp.AND || op == BinaryOp.OR) {
            boolean l = requireBoolean(left, op.symbol, binary.position());
            if (l == (op == BinaryOp.OR)) {
                return Values.bool(l);
            }
            return Values.bool(requireBoolean(eval(binary.right(), current), op.symbol, binary.position()));
        }
        JsonValue right = eval(binary.right(), current);
        if (left == null || right == null) {
            // Comparisons with undefined are false; arithmetic with undefined stays undefined.
            return isArithmetic(op) ? null : JsonValue.FALSE;
        }
        return switch (op) {
            case EQ -> Values.bool(Values.deepEquals(left, right));
            case NE -> Values.bool(!Values.deepEquals(left, right));
            case LT, LE, GT, GE -> Values.bool(ordered(op, left, right));
            case IN -> {
                if (!(right instanceof JsonArray candidates)) {
                    throw error("'in' needs an array on its right, got " + Values.typeName(right), binary.position());
                }
                yield Values.bool(candidates.stream().anyMatch(candidate -> Values.deepEquals(left, candidate)));
            }
            default -> arithmetic(binary, left, right);
        };
    }

    private static boolean isArithmetic(BinaryOp op) {
        return switch (op) {
            case ADD, SUB, MUL, DIV, MOD -> true;
            default -> false;
        };
    }

    /** Numbers compare numerically, strings lexicographically; anything else is not ordered (false). */
    private static boolean ordered(BinaryOp op, JsonValue left, JsonValue right) {
        int comparison;
        if (left instanceof JsonNumber l && right instanceof JsonNumber r) {
            comparison = l.bigDecimalValue().compareTo(r.bigDecimalValue());
        } else if (left instanceof JsonString l && right instanceof JsonString r) {
            comparison = l.getString().compareTo(r.getString());
        } else {
            return false;
        }
        return switch (op) {
            case LT -> comparison < 0;
            case LE -> comparison <= 0;
            case GT -> comparison > 0;
            default -> comparison >= 0;
        };
    }

    private JsonValue arithmetic(Binary binary, JsonValue left, JsonValue right) {
        String symbol = binary.op().symbol;
        if (binary.op() == BinaryOp.ADD && left instanceof JsonString l && right instanceof JsonString r) {
            return Values.PROVIDER.createValue(l.getString() + r.getString());
        }
        BigDecimal l = requireNumber(left, symbol, binary.position());
        BigDecimal r = requireNumber(right, symbol, binary.position());
        if ((binary.op() == BinaryOp.DIV || binary.op() == BinaryOp.MOD) && r.signum() == 0) {
            throw error("division by zero", binary.position());
        }
        try {
            // Rounded like every operation so that far-apart exponents (1e999999999 + 1) stay cheap.
            return Values.number(switch (binary.op()) {
                case ADD -> l.add(r, MathContext.DECIMAL128);
                case SUB -> l.subtract(r, MathContext.DECIMAL128);
                case MUL -> l.multiply(r, MathContext.DECIMAL128);
                case DIV -> l.divide(r, MathContext.DECIMAL128);
                default -> l.remainder(r, MathContext.DECIMAL128);
            });
        } catch (ArithmeticException e) {
            throw error("'" + symbol + "' is out of range (" + e.getMessage() + ")", binary.position());
        }
    }

    private JsonValue regexMatch(RegexMatch match, JsonValue current) {
        JsonValue subject = eval(match.subject(), current);
        Predicate<String> find = match.literalFind();
        if (find == null) {
            JsonValue source = eval(match.pattern(), current);
            if (!(source instanceof JsonString regex)) {
                return JsonValue.FALSE;
            }
            try {
                Pattern computed = BoundedRegex.compile(regex.getString());
                find = input -> computed.matcher(input).find();
            } catch (PatternSyntaxException e) {
                throw error("invalid regular expression (" + e.getDescription() + ")", match.pattern().position());
            }
        }
        if (!(subject instanceof JsonString text)) {
            return JsonValue.FALSE;
        }
        return Values.bool(find.test(text.getString()) != match.negated());
    }

    private JsonValue call(Call call, JsonValue current) {
        JsonValue argument = eval(call.argument(), current);
        return switch (call.function()) {
            case IS_DEFINED -> Values.bool(argument != null);
            case IS_UNDEFINED -> Values.bool(argument == null);
            case IS_EMPTY -> Values.bool(isEmpty(argument));
            case IS_NOT_EMPTY -> Values.bool(!isEmpty(argument));
            case LENGTH -> Values.PROVIDER.createValue(length(argument, call));
        };
    }

    private static boolean isEmpty(JsonValue value) {
        return value == null || switch (value.getValueType()) {
            case NULL -> true;
            case STRING -> ((JsonString) value).getString().isEmpty();
            case ARRAY -> ((JsonArray) value).isEmpty();
            case OBJECT -> ((JsonObject) value).isEmpty();
            default -> false;
        };
    }

    private int length(JsonValue value, Call call) {
        if (value == null) {
            return 0;
        }
        return switch (value.getValueType()) {
            case NULL -> 0;
            case STRING -> {
                String text = ((JsonString) value).getString();
                yield text.codePointCount(0, text.length());
            }
            case ARRAY -> ((JsonArray) value).size();
            case OBJECT -> ((JsonObject) value).size();
            default -> throw error("length() needs an array, object or string, got " + Values.typeName(value),
                    call.position());
        };
    }

    private boolean requireBoolean(JsonValue value, String operator, int position) {
        if (value != null && value.getValueType() == JsonValue.ValueType.TRUE) {
            return true;
        }
        if (value != null && value.getValueType() == JsonValue.ValueType.FALSE) {
            return false;
        }
        throw error("'" + operator + "' needs boolean operands, got "
                + (value == null ? "undefined" : Values.typeName(value)), position);
    }

    private BigDecimal requireNumber(JsonValue value, String operator, int position) {
        if (value instanceof JsonNumber number) {
            return number.bigDecimalValue();
        }
        throw error("'" + operator + "' needs numbers, got " + Values.typeName(value), position);
    }

    private JsonPathEvaluationException error(String message, int position) {
        return new JsonPathEvaluationException(message, expression, position);
    }

    /** A resource bound was reached: the whole evaluation stops, even inside a filter. */
    private JsonPathEvaluationException limit(String message, int position) {
        return new JsonPathEvaluationException(message, expression, position, true);
    }
}

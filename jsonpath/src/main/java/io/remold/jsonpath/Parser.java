package io.remold.jsonpath;

import com.google.re2j.PatternSyntaxException;
import io.remold.jsonpath.Ast.ArrayLiteral;
import io.remold.jsonpath.Ast.Binary;
import io.remold.jsonpath.Ast.BinaryOp;
import io.remold.jsonpath.Ast.Call;
import io.remold.jsonpath.Ast.Descendants;
import io.remold.jsonpath.Ast.DynamicKey;
import io.remold.jsonpath.Ast.Expr;
import io.remold.jsonpath.Ast.Filter;
import io.remold.jsonpath.Ast.Function;
import io.remold.jsonpath.Ast.Index;
import io.remold.jsonpath.Ast.Literal;
import io.remold.jsonpath.Ast.Member;
import io.remold.jsonpath.Ast.Path;
import io.remold.jsonpath.Ast.RegexMatch;
import io.remold.jsonpath.Ast.Script;
import io.remold.jsonpath.Ast.Slice;
import io.remold.jsonpath.Ast.Step;
import io.remold.jsonpath.Ast.Unary;
import io.remold.jsonpath.Ast.UnaryOp;
import io.remold.jsonpath.Ast.Union;
import io.remold.jsonpath.Ast.Wildcard;
import jakarta.json.JsonNumber;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Recursive-descent parser for KubeMod's JSONPath dialect; works directly on the characters of the source. */
final class Parser {
    /** Deepest nesting of parentheses, brackets and unary operators; keeps the parser's stack bounded. */
    static final int MAX_DEPTH = 64;

    private final String source;
    private int pos;
    private int depth;

    private Parser(String source) {
        this.source = source;
    }

    static Expr parse(String source) {
        Parser parser = new Parser(source);
        parser.skipSpace();
        if (parser.atEnd()) {
            throw parser.error("empty expression", 0);
        }
        Expr expr = parser.parseOr();
        parser.skipSpace();
        if (!parser.atEnd()) {
            throw parser.error("unexpected " + parser.describeNext(), parser.pos);
        }
        return expr;
    }

    // ---- expressions, lowest precedence first ----

    private Expr parseOr() {
        enter();
        Expr left = parseAnd();
        while (skipSpace() && consume("||")) {
            int at = pos - 2;
            left = new Binary(BinaryOp.OR, left, parseAnd(), at);
        }
        depth--;
        return left;
    }

    private Expr parseAnd() {
        Expr left = parseComparison();
        while (skipSpace() && consume("&&")) {
            int at = pos - 2;
            left = new Binary(BinaryOp.AND, left, parseComparison(), at);
        }
        return left;
    }

    private Expr parseComparison() {
        Expr left = parseAdditive();
        while (true) {
            skipSpace();
            int at = pos;
            if (consume("=~") || consume("!~")) {
                boolean negated = source.charAt(at) == '!';
                skipSpace();
                Expr pattern = parseAdditive();
                left = new RegexMatch(left, pattern, literalFind(pattern), negated, at);
                continue;
            }
            BinaryOp op = consume("==") ? BinaryOp.EQ
                    : consume("!=") ? BinaryOp.NE
                    : consume("<=") ? BinaryOp.LE
                    : consume(">=") ? BinaryOp.GE
                    : consume("<") ? BinaryOp.LT
                    : consume(">") ? BinaryOp.GT
                    : consumeKeyword("in") ? BinaryOp.IN
                    : null;
            if (op == null) {
                return left;
            }
            left = new Binary(op, left, parseAdditive(), at);
        }
    }

    /** The memoized find of a literal pattern, or null when the pattern is computed from the document. */
    private Predicate<String> literalFind(Expr pattern) {
        if (!(pattern instanceof Literal literal)) {
            return null;
        }
        if (!(literal.value() instanceof JsonString regex)) {
            throw error("regular expression must be a string", literal.position());
        }
        try {
            return BoundedMemo.find(BoundedRegex.compile(regex.getString()));
        } catch (PatternSyntaxException e) {
            throw error("invalid regular expression (" + e.getDescription() + ")", literal.position());
        }
    }

    private Expr parseAdditive() {
        Expr left = parseMultiplicative();
        while (true) {
            skipSpace();
            int at = pos;
            BinaryOp op = consume("+") ? BinaryOp.ADD : consume("-") ? BinaryOp.SUB : null;
            if (op == null) {
                return left;
            }
            left = new Binary(op, left, parseMultiplicative(), at);
        }
    }

    private Expr parseMultiplicative() {
        Expr left = parseUnary();
        while (true) {
            skipSpace();
            int at = pos;
            BinaryOp op = consume("*") ? BinaryOp.MUL : consume("/") ? BinaryOp.DIV
                    : consume("%") ? BinaryOp.MOD : null;
            if (op == null) {
                return left;
            }
            left = new Binary(op, left, parseUnary(), at);
        }
    }

    private Expr parseUnary() {
        skipSpace();
        int at = pos;
        if (peek() == '!' && peekAt(1) != '=' && peekAt(1) != '~') {
            pos++;
            enter();
            Expr operand = parseUnary();
            depth--;
            return new Unary(UnaryOp.NOT, operand, at);
        }
        if (peek() == '-') {
            pos++;
            enter();
            Expr operand = parseUnary();
            depth--;
            // Fold "-3" into a literal so that it can serve as an index or slice bound.
            if (operand instanceof Literal literal && literal.value() instanceof JsonNumber number) {
                return new Literal(Values.number(number.bigDecimalValue().negate()), at);
            }
            return new Unary(UnaryOp.NEGATE, operand, at);
        }
        return parsePrimary();
    }

    private Expr parsePrimary() {
        skipSpace();
        int at = pos;
        char c = peek();
        if (c == '$' || c == '@') {
            pos++;
            return parsePath(c == '$', at);
        }
        if (c == '"' || c == '\'') {
            return new Literal(Values.PROVIDER.createValue(parseString()), at);
        }
        if (isDigit(c) || (c == '.' && isDigit(peekAt(1)))) {
            return new Literal(parseNumber(), at);
        }
        if (c == '(') {
            pos++;
            Expr inner = parseOr();
            expect(')');
            return inner;
        }
        if (c == '[') {
            pos++;
            enter();
            List<Expr> elements = new ArrayList<>();
            skipSpace();
            if (!consume("]")) {
                do {
                    elements.add(parseOr());
                    skipSpace();
                } while (consume(","));
                expect(']');
            }
            depth--;
            return new ArrayLiteral(List.copyOf(elements), at);
        }
        if (isNameChar(c)) {
            String word = parseName();
            switch (word) {
                case "true" -> {
                    return new Literal(JsonValue.TRUE, at);
                }
                case "false" -> {
                    return new Literal(JsonValue.FALSE, at);
                }
                case "null" -> {
                    return new Literal(JsonValue.NULL, at);
                }
                default -> {
                    return parseCall(word, at);
                }
            }
        }
        throw error(atEnd() ? "unexpected end of expression" : "unexpected " + describeNext(), at);
    }

    private Expr parseCall(String name, int at) {
        Function function = null;
        for (Function candidate : Function.values()) {
            if (candidate.functionName.equals(name)) {
                function = candidate;
            }
        }
        skipSpace();
        if (function == null || peek() != '(') {
            throw error(peek() == '(' ? "unknown function '" + name + "'" : "unexpected '" + name + "'", at);
        }
        pos++;
        skipSpace();
        if (peek() == ')') {
            throw error("function '" + name + "' takes one argument", pos);
        }
        Expr argument = parseOr();
        skipSpace();
        if (peek() == ',') {
            throw error("function '" + name + "' takes one argument", pos);
        }
        expect(')');
        return new Call(function, argument, at);
    }

    // ---- paths ----

    private Path parsePath(boolean fromRoot, int at) {
        List<Step> steps = new ArrayList<>();
        while (!atEnd()) {
            char c = peek();
            if (c == '.' && peekAt(1) == '.') {
                pos += 2;
                steps.add(new Descendants());
                char next = peek();
                if (next == '[') {
                    steps.add(parseBracket());
                } else if (next == '(') {
                    steps.add(parseScript());
                } else {
                    steps.add(parseDotStep("'..'"));
                }
            } else if (c == '.') {
                pos++;
                steps.add(parseDotStep("'.'"));
            } else if (c == '[') {
                steps.add(parseBracket());
            } else if (c == '(') {
                steps.add(parseScript());
            } else {
                break;
            }
        }
        boolean multi = steps.stream().anyMatch(step -> step instanceof Wildcard || step instanceof Union
                || step instanceof Slice || step instanceof Filter || step instanceof Descendants);
        return new Path(fromRoot, List.copyOf(steps), multi, at);
    }

    private Step parseDotStep(String after) {
        if (peek() == '*') {
            pos++;
            return new Wildcard();
        }
        if (!isNameChar(peek())) {
            throw error("expected a name or '*' after " + after, pos);
        }
        return new Member(parseName());
    }

    private Step parseScript() {
        pos++;
        enter();
        Expr script = parseOr();
        expect(')');
        depth--;
        return new Script(script);
    }

    private Step parseBracket() {
        int open = pos;
        pos++;
        enter();
        skipSpace();
        Step step;
        if (peek() == '*' && nextNonSpaceAfter(pos + 1) == ']') {
            pos++;
            step = new Wildcard();
        } else if (peek() == '?') {
            pos++;
            step = new Filter(parseOr());
        } else if (startsSlice()) {
            step = parseSlice();
        } else {
            step = parseSubscripts(open);
        }
        skipSpace();
        expect(']');
        depth--;
        return step;
    }

    private Step parseSubscripts(int open) {
        List<Expr> entries = new ArrayList<>();
        do {
            skipSpace();
            if (peek() == ']') {
                throw error("expected a key, an index, '*', '?' or a slice", pos);
            }
            entries.add(parseOr());
            skipSpace();
        } while (consume(","));
        if (entries.size() == 1) {
            Step constant = constantSubscript(entries.get(0));
            return constant != null ? constant : new DynamicKey(entries.get(0));
        }
        List<Step> constants = new ArrayList<>();
        for (Expr entry : entries) {
            Step constant = constantSubscript(entry);
            if (constant == null) {
                throw error("union entries must be string or integer literals", entry.position());
            }
            constants.add(constant);
        }
        return new Union(List.copyOf(constants));
    }

    /** A literal subscript as a Member or Index step, null for an expression to evaluate per node. */
    private Step constantSubscript(Expr entry) {
        if (!(entry instanceof Literal literal)) {
            return null;
        }
        if (literal.value() instanceof JsonString name) {
            return new Member(name.getString());
        }
        if (literal.value() instanceof JsonNumber number) {
            return new Index(intValue(number, literal.position()));
        }
        throw error("a subscript must be a string or an integer", literal.position());
    }

    private boolean startsSlice() {
        int i = pos;
        if (i < source.length() && (source.charAt(i) == '-' || source.charAt(i) == '+')) {
            i++;
        }
        while (i < source.length() && isDigit(source.charAt(i))) {
            i++;
        }
        return nextNonSpaceAfter(i) == ':';
    }

    private Step parseSlice() {
        Integer start = optionalInteger();
        skipSpace();
        expect(':');
        Integer end = optionalInteger();
        skipSpace();
        int step = 1;
        if (consume(":")) {
            skipSpace();
            int at = pos;
            Integer given = optionalInteger();
            if (given != null) {
                if (given == 0) {
                    throw error("slice step must not be 0", at);
                }
                step = given;
            }
        }
        skipSpace();
        if (peek() == ',' || peek() == ':') {
            throw error("expected ']' after a slice", pos);
        }
        return new Slice(start, end, step);
    }

    private Integer optionalInteger() {
        skipSpace();
        int at = pos;
        if (peek() == '-' || peek() == '+') {
            pos++;
        }
        if (!isDigit(peek())) {
            pos = at;
            return null;
        }
        while (isDigit(peek())) {
            pos++;
        }
        try {
            return Integer.parseInt(source.substring(at, pos));
        } catch (NumberFormatException e) {
            throw error("integer out of range", at);
        }
    }

    private int intValue(JsonNumber number, int at) {
        try {
            return number.bigDecimalValue().intValueExact();
        } catch (ArithmeticException e) {
            throw error("an index must be an integer in the range of int", at);
        }
    }

    // ---- tokens ----

    private String parseName() {
        int start = pos;
        while (isNameChar(peek())) {
            pos++;
        }
        return source.substring(start, pos);
    }

    private JsonValue parseNumber() {
        int start = pos;
        while (isDigit(peek())) {
            pos++;
        }
        if (peek() == '.' && isDigit(peekAt(1))) {
            pos++;
            while (isDigit(peek())) {
                pos++;
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            int mark = pos;
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!isDigit(peek())) {
                throw error("malformed number exponent", mark);
            }
            while (isDigit(peek())) {
                pos++;
            }
        }
        if (isNameChar(peek())) {
            throw error("malformed number", start);
        }
        try {
            return Values.number(new BigDecimal(source.substring(start, pos)));
        } catch (NumberFormatException | ArithmeticException e) {
            throw error("malformed number", start);
        }
    }

    private String parseString() {
        int start = pos;
        char quote = source.charAt(pos++);
        StringBuilder text = new StringBuilder();
        while (true) {
            if (atEnd()) {
                throw error("unterminated string", start);
            }
            char c = source.charAt(pos++);
            if (c == quote) {
                return text.toString();
            }
            if (c != '\\') {
                text.append(c);
                continue;
            }
            if (atEnd()) {
                throw error("unterminated string", start);
            }
            int escape = pos - 1;
            char e = source.charAt(pos++);
            switch (e) {
                case '"', '\'', '\\', '/' -> text.append(e);
                case 'b' -> text.append('\b');
                case 'f' -> text.append('\f');
                case 'n' -> text.append('\n');
                case 'r' -> text.append('\r');
                case 't' -> text.append('\t');
                case 'u' -> {
                    if (pos + 4 > source.length()) {
                        throw error("malformed \\u escape", escape);
                    }
                    try {
                        text.append((char) Integer.parseInt(source.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("malformed \\u escape", escape);
                    }
                    pos += 4;
                }
                default -> throw error("unknown escape '\\" + e + "'", escape);
            }
        }
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw error("expression nested deeper than " + MAX_DEPTH + " levels", pos);
        }
    }

    /** Skips whitespace; always true so that it can lead a condition. */
    private boolean skipSpace() {
        while (!atEnd() && Character.isWhitespace(source.charAt(pos))) {
            pos++;
        }
        return true;
    }

    private char nextNonSpaceAfter(int i) {
        while (i < source.length() && Character.isWhitespace(source.charAt(i))) {
            i++;
        }
        return i < source.length() ? source.charAt(i) : 0;
    }

    private boolean consume(String token) {
        if (source.startsWith(token, pos)) {
            pos += token.length();
            return true;
        }
        return false;
    }

    private boolean consumeKeyword(String keyword) {
        if (source.startsWith(keyword, pos) && !isNameChar(peekAt(keyword.length()))) {
            pos += keyword.length();
            return true;
        }
        return false;
    }

    private void expect(char c) {
        skipSpace();
        if (peek() != c || atEnd()) {
            throw error("expected '" + c + "'" + (atEnd() ? "" : " but found " + describeNext()), pos);
        }
        pos++;
    }

    private boolean atEnd() {
        return pos >= source.length();
    }

    private char peek() {
        return peekAt(0);
    }

    private char peekAt(int offset) {
        int i = pos + offset;
        return i < source.length() ? source.charAt(i) : 0;
    }

    private String describeNext() {
        return atEnd() ? "end of expression" : "'" + source.charAt(pos) + "'";
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isNameChar(char c) {
        return c == '_' || Character.isLetterOrDigit(c);
    }

    private JsonPathSyntaxException error(String message, int at) {
        return new JsonPathSyntaxException(message, source, at);
    }
}

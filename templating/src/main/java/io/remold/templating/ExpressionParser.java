package io.remold.templating;

import com.google.re2j.PatternSyntaxException;
import io.remold.jsonpath.BoundedRegex;
import jakarta.json.JsonNumber;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses what stands inside one tag:
 * <pre>
 * pipeline := command ('|' command)*          the value before '|' becomes the last argument of the function after it
 * command  := function operand* | operand
 * operand  := "string" | `raw string` | number | true | false | null | '(' pipeline ')' | path
 * path     := (name | '.') ('.' name | '[' operand ']')*
 * </pre>
 */
final class ExpressionParser {
    /**
     * Deepest nesting of {@code (...)} and {@code [...]} in a tag (the Go template translator keeps to it too): real
     * tags nest two or three; parsing and evaluating take a few stack frames per level.
     */
    static final int MAX_NESTING = 64;

    private final SourceText source;
    private final String content;
    private final int base;
    private int position;
    private int depth;

    private ExpressionParser(SourceText source, String content, int base) {
        this.source = source;
        this.content = content;
        this.base = base;
    }

    /** Parses the content of a tag that starts at {@code base} in the source. */
    static Expression parse(SourceText source, String content, int base) {
        ExpressionParser parser = new ExpressionParser(source, content, base);
        parser.skipSpaces();
        if (parser.atEnd()) {
            throw source.error("empty tag", base);
        }
        Expression expression = parser.pipeline();
        parser.skipSpaces();
        if (!parser.atEnd()) {
            throw parser.error("unexpected \"" + parser.content.charAt(parser.position) + "\"");
        }
        return expression;
    }

    private Expression pipeline() {
        if (++depth > MAX_NESTING) {
            throw error("expression nested deeper than " + MAX_NESTING + " levels");
        }
        Expression value = command(null);
        skipSpaces();
        while (peek('|')) {
            position++;
            value = command(value);
            skipSpaces();
        }
        depth--;
        return value;
    }

    private Expression command(Expression piped) {
        skipSpaces();
        int start = position;
        String name = peekName();
        if (name != null && Function.exists(name) && !continuesPath(position + name.length())) {
            position += name.length();
            return call(Function.named(name), start, piped);
        }
        if (piped != null) {
            if (name != null) {
                throw error("unknown function \"" + name + "\"");
            }
            throw error("a function name is expected after \"|\"");
        }
        Expression operand = operand();
        skipSpaces();
        if (!atEndOfCommand()) {
            if (operand instanceof Expression.Path path && path.segments().isEmpty()
                    && Character.isLetter(path.head().charAt(0)) && !Scope.ROOT_NAMES.contains(path.head())) {
                throw source.error("unknown function \"" + path.head() + "\"", base + start);
            }
            throw error("unexpected \"" + content.charAt(position) + "\"");
        }
        return operand;
    }

    private Expression call(Function function, int start, Expression piped) {
        List<Expression> args = new ArrayList<>();
        while (true) {
            skipSpaces();
            if (atEndOfCommand()) {
                break;
            }
            args.add(operand());
        }
        if (piped != null) {
            args.add(piped);
        }
        int offset = base + start;
        if (!function.acceptsArgCount(args.size())) {
            throw source.error(function.functionName() + " takes " + function.arity() + ", got " + args.size(), offset);
        }
        int regex = function.regexArgument();
        if (regex >= 0 && args.get(regex) instanceof Expression.Literal literal && literal.value() instanceof JsonString s) {
            args.set(regex, regexLiteral(s.getString(), literal.offset()));
        }
        return new Expression.Call(function, List.copyOf(args), offset, source);
    }

    private Expression.RegexLiteral regexLiteral(String regex, int offset) {
        try {
            return new Expression.RegexLiteral(regex, BoundedRegex.compile(regex), offset);
        } catch (PatternSyntaxException e) {
            throw source.error("bad regular expression \"" + regex + "\": " + e.getDescription(), offset);
        }
    }

    private Expression operand() {
        skipSpaces();
        if (atEnd()) {
            throw error("an operand is expected");
        }
        int start = position;
        char c = content.charAt(position);
        if (c == '"' || c == '`') {
            return new Expression.Literal(Json.provider().createValue(string()), base + start);
        }
        if (Character.isDigit(c) || (c == '-' && position + 1 < content.length()
                && Character.isDigit(content.charAt(position + 1)))) {
            return new Expression.Literal(number(), base + start);
        }
        if (c == '(') {
            position++;
            Expression inner = pipeline();
            skipSpaces();
            expect(')');
            return inner;
        }
        String name = peekName();
        if (name != null && !continuesPath(position + name.length())) {
            JsonValue constant = switch (name) {
                case "true" -> JsonValue.TRUE;
                case "false" -> JsonValue.FALSE;
                case "null" -> JsonValue.NULL;
                default -> null;
            };
            if (constant != null) {
                position += name.length();
                return new Expression.Literal(constant, base + start);
            }
        }
        if (c == '.' || name != null) {
            return path();
        }
        throw error("unexpected \"" + c + "\"");
    }

    private Expression.Path path() {
        int start = position;
        String head;
        if (peek('.')) {
            position++;
            head = Expression.Path.CURRENT;
        } else {
            head = peekName();
            position += head.length();
        }
        List<Segment> segments = new ArrayList<>();
        if (head.equals(Expression.Path.CURRENT) && peekName() != null) {
            segments.add(name());
        }
        while (!atEnd()) {
            if (peek('.')) {
                position++;
                int end = position;
                while (end < content.length() && isNameChar(content.charAt(end), false)) {
                    end++;
                }
                if (end == position) {
                    throw error("a name is expected after \".\"");
                }
                segments.add(new Segment.Name(content.substring(position, end)));
                position = end;
            } else if (peek('[')) {
                position++;
                segments.add(bracket());
            } else {
                break;
            }
        }
        return new Expression.Path(head, List.copyOf(segments), base + start, source);
    }

    private Segment name() {
        String name = peekName();
        position += name.length();
        return new Segment.Name(name);
    }

    private Segment bracket() {
        Expression key = pipeline();
        skipSpaces();
        expect(']');
        if (key instanceof Expression.Literal literal) {
            if (literal.value() instanceof JsonString s) {
                return new Segment.Key(s.getString());
            }
            if (literal.value() instanceof JsonNumber n && n.isIntegral()) {
                try {
                    return new Segment.Index(n.bigIntegerValue().intValueExact());
                } catch (ArithmeticException e) {
                    throw source.error("index " + n + " is too large", literal.offset());
                }
            }
            throw source.error("a key or an index is expected inside [...]", literal.offset());
        }
        return new Segment.Dynamic(key);
    }

    private String string() {
        char quote = content.charAt(position);
        int start = position;
        position++;
        StringBuilder out = new StringBuilder();
        while (position < content.length()) {
            char c = content.charAt(position++);
            if (c == quote) {
                return out.toString();
            }
            if (c == '\\' && quote == '"') {
                if (position >= content.length()) {
                    break;
                }
                char escaped = content.charAt(position++);
                switch (escaped) {
                    case '"', '\\', '/' -> out.append(escaped);
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'u' -> {
                        if (position + 4 > content.length()) {
                            throw source.error("bad \\u escape", base + position - 2);
                        }
                        try {
                            out.append((char) Integer.parseInt(content.substring(position, position + 4), 16));
                        } catch (NumberFormatException e) {
                            throw source.error("bad \\u escape", base + position - 2);
                        }
                        position += 4;
                    }
                    default -> throw source.error("unknown escape \\" + escaped, base + position - 2);
                }
            } else {
                out.append(c);
            }
        }
        throw source.error("unterminated string", base + start);
    }

    private JsonValue number() {
        int start = position;
        if (peek('-')) {
            position++;
        }
        while (!atEnd() && (Character.isDigit(content.charAt(position)) || content.charAt(position) == '.')) {
            position++;
        }
        String text = content.substring(start, position);
        try {
            BigDecimal value = new BigDecimal(text);
            return text.contains(".")
                    ? Json.provider().createValue(value)
                    : Json.provider().createValue(value.toBigIntegerExact());
        } catch (NumberFormatException | ArithmeticException e) {
            throw source.error("bad number \"" + text + "\"", base + start);
        }
    }

    /** The name (letters, digits, '_' and '-', not starting with a digit or '-') at the current position, or null. */
    private String peekName() {
        int end = position;
        while (end < content.length() && isNameChar(content.charAt(end), end == position)) {
            end++;
        }
        return end == position ? null : content.substring(position, end);
    }

    private static boolean isNameChar(char c, boolean first) {
        return Character.isLetter(c) || c == '_' || (!first && (Character.isDigit(c) || c == '-'));
    }

    private boolean continuesPath(int at) {
        return at < content.length() && (content.charAt(at) == '.' || content.charAt(at) == '[');
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error(atEnd() ? "\"" + c + "\" expected at the end of the tag" : "\"" + c + "\" expected");
        }
        position++;
    }

    private boolean peek(char c) {
        return position < content.length() && content.charAt(position) == c;
    }

    /** A command ends at the end of the tag, at a pipe, or where an enclosing (...) or [...] closes. */
    private boolean atEndOfCommand() {
        return atEnd() || peek('|') || peek(')') || peek(']');
    }

    private boolean atEnd() {
        return position >= content.length();
    }

    private void skipSpaces() {
        while (position < content.length() && Character.isWhitespace(content.charAt(position))) {
            position++;
        }
    }

    private TemplateException error(String message) {
        return source.error(message, base + position);
    }
}

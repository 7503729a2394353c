package io.remold.templating;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Translates the subset of Go's text/template that KubeMod rules use into Remold's syntax: field chains from the
 * context, {@code .#N} captures, {@code index}, literals, parentheses, pipes, the supported Sprig functions and
 * {@code {{- -}}} trimming. Any other construct is refused with its position, because a silent approximation would
 * change what a rule writes into objects.
 */
final class GoTemplateTranslator {
    private static final Set<String> CONTEXT_FIELDS = Set.of("Target", "Namespace", "SelectedItem", "SelectKeyParts");
    private static final Set<String> KEYWORDS =
            Set.of("if", "else", "end", "range", "with", "define", "template", "block", "break", "continue");

    private final SourceText source;
    private final String text;
    private int position;
    private int depth;
    /** Whether the action just read ended with " -}}", which trims the whitespace after it. */
    private boolean trimAfter;

    private GoTemplateTranslator(String goTemplate) {
        this.source = new SourceText(goTemplate);
        this.text = goTemplate;
    }

    static String translate(String goTemplate) {
        return new GoTemplateTranslator(goTemplate).translate();
    }

    /** A translated operand or pipeline; {@code path} when Remold can append {@code .name} or {@code [key]} to it. */
    private record Code(String text, boolean path, boolean simple) {
        String asArgument() {
            return simple ? text : "(" + text + ")";
        }
    }

    private String translate() {
        StringBuilder out = new StringBuilder();
        boolean trimNext = false;
        while (position < text.length()) {
            int open = text.indexOf("{{", position);
            String literal = text.substring(position, open < 0 ? text.length() : open);
            if (trimNext) {
                literal = literal.stripLeading();
            }
            if (open < 0) {
                out.append(literal);
                break;
            }
            boolean trimBefore = text.startsWith("{{- ", open) || text.startsWith("{{-\t", open)
                    || text.startsWith("{{-\n", open) || text.startsWith("{{-\r", open);
            if (trimBefore) {
                literal = literal.stripTrailing();
            }
            position = open + (trimBefore ? 3 : 2);
            String action = action(open);
            trimNext = trimAfter;
            if (action == null) {
                out.append(literal);
                continue;
            }
            out.append(literal).append("{{ ").append(action).append(" }}");
        }
        return out.toString();
    }

    /** Translates one action and moves past its closing braces; null for a comment. */
    private String action(int open) {
        if (text.indexOf("}}", position) < 0) {
            throw source.error("unclosed action", open);
        }
        skipSpaces();
        if (text.startsWith("/*", position)) {
            int end = text.indexOf("*/", position + 2);
            if (end < 0) {
                throw source.error("unclosed comment", open);
            }
            position = end + 2;
            skipSpaces();
            closeAction(open);
            return null;
        }
        if (atActionEnd()) {
            throw source.error("missing value for command", open);
        }
        Code pipeline = pipeline(open);
        skipSpaces();
        closeAction(open);
        return pipeline.text();
    }

    private void closeAction(int open) {
        trimAfter = text.startsWith("-}}", position);
        if (trimAfter) {
            position += 3;
        } else if (text.startsWith("}}", position)) {
            position += 2;
        } else if (position >= text.length()) {
            throw source.error("unclosed action", open);
        } else {
            throw error("unexpected \"" + text.charAt(position) + "\" in action");
        }
    }

    private Code pipeline(int open) {
        if (++depth > ExpressionParser.MAX_NESTING) {
            throw error("action nested deeper than " + ExpressionParser.MAX_NESTING + " levels");
        }
        Code value = command(null, open);
        skipSpaces();
        while (peek('|')) {
            position++;
            value = command(value, open);
            skipSpaces();
        }
        depth--;
        return value;
    }

    private Code command(Code piped, int open) {
        skipSpaces();
        int start = position;
        String word = identifier();
        if (word != null) {
            position += word.length();
            if (KEYWORDS.contains(word)) {
                throw source.error("Go template action \"" + word + "\" is not supported", start);
            }
            List<Code> args = new ArrayList<>();
            while (!atCommandEnd()) {
                args.add(operand(open));
            }
            if (piped != null) {
                args.add(piped);
            }
            return call(word, args, start, piped != null);
        }
        if (piped != null && !peek('$')) {
            throw error("a function is expected after \"|\"");
        }
        Code operand = operand(open);
        if (!atCommandEnd()) {
            char next = text.charAt(position);
            throw next == '.' || next == '"' || next == '(' || Character.isLetterOrDigit(next)
                    ? error("only functions take arguments")
                    : error("unexpected \"" + next + "\" in action");
        }
        return operand;
    }

    private Code call(String name, List<Code> args, int start, boolean piped) {
        if (name.equals("index")) {
            return index(args, start);
        }
        if (name.equals("true") || name.equals("false") || name.equals("nil")) {
            if (!args.isEmpty()) {
                throw source.error("\"" + name + "\" is not a function", start);
            }
            return new Code(name.equals("nil") ? "null" : name, false, true);
        }
        Function function = Function.named(name);
        if (function == null || !function.inSprig()) {
            throw source.error("function \"" + name + "\" is not supported", start);
        }
        if (!function.acceptsArgCount(args.size())) {
            throw source.error(name + " takes " + function.arity() + ", got " + args.size(), start);
        }
        if (function == Function.REGEX_REPLACE_ALL) {
            // Sprig: regexReplaceAll REGEX INPUT REPLACEMENT; Remold puts the input last so that it can be piped.
            args = List.of(args.get(0), args.get(2), args.get(1));
        } else if (piped) {
            StringBuilder pipe = new StringBuilder(args.getLast().text()).append(" | ").append(name);
            args.subList(0, args.size() - 1).forEach(arg -> pipe.append(' ').append(arg.asArgument()));
            return new Code(pipe.toString(), false, false);
        }
        StringBuilder call = new StringBuilder(name);
        args.forEach(arg -> call.append(' ').append(arg.asArgument()));
        return new Code(call.toString(), false, false);
    }

    /** Go's {@code index X k1 k2}: Remold's {@code X[k1][k2]}, which needs a path to start from. */
    private Code index(List<Code> args, int start) {
        if (args.isEmpty()) {
            throw source.error("index takes at least 1 argument, got 0", start);
        }
        Code base = args.getFirst();
        if (!base.path()) {
            throw source.error("index can only be translated on a field of the context", start);
        }
        StringBuilder path = new StringBuilder(base.text());
        for (Code key : args.subList(1, args.size())) {
            path.append('[').append(key.text()).append(']');
        }
        return new Code(path.toString(), true, true);
    }

    private Code operand(int open) {
        skipSpaces();
        if (atActionEnd() && position >= text.length()) {
            throw source.error("unclosed action", open);
        }
        int start = position;
        char c = text.charAt(position);
        if (c == '"' || c == '`') {
            return new Code(Json.provider().createValue(string()).toString(), false, true);
        }
        if (c == '\'') {
            throw error("character constants are not supported");
        }
        if (Character.isDigit(c) || (c == '-' || c == '+') && position + 1 < text.length()
                && Character.isDigit(text.charAt(position + 1))) {
            return new Code(number(), false, true);
        }
        if (c == '$') {
            throw error("template variables ($) are not supported");
        }
        if (c == '(') {
            position++;
            Code inner = pipeline(open);
            skipSpaces();
            if (!peek(')')) {
                throw error("\")\" expected");
            }
            position++;
            return fields(inner, start);
        }
        if (c == '.') {
            return contextField(start);
        }
        String word = identifier();
        if (word != null) {
            // a function name used as an argument, e.g. "default (lower .x) .y" without parentheses
            position += word.length();
            if (word.equals("true") || word.equals("false") || word.equals("nil")) {
                return new Code(word.equals("nil") ? "null" : word, false, true);
            }
            throw source.error("function \"" + word + "\" used as an argument needs parentheses", start);
        }
        throw error("unexpected \"" + c + "\" in action");
    }

    /** {@code .Target.a.b}, {@code .#0} (KubeMod's capture shorthand) or {@code .} alone. */
    private Code contextField(int start) {
        position++;
        if (peek('#')) {
            position++;
            int digits = position;
            while (position < text.length() && Character.isDigit(text.charAt(position))) {
                position++;
            }
            if (digits == position) {
                throw error("a number is expected after \".#\"");
            }
            if (position - digits > 9) { // no select has that many wildcards; found by fuzzing (it overflowed an int)
                throw error("capture number " + text.substring(digits, position) + " is too large");
            }
            return new Code("SelectKeyParts[" + Integer.parseInt(text.substring(digits, position)) + "]", true, true);
        }
        String field = identifier();
        if (field == null) {
            throw source.error("\".\" (the whole template context) is not supported; use .Target, .Namespace, "
                    + ".SelectedItem or .SelectKeyParts", start);
        }
        if (!CONTEXT_FIELDS.contains(field)) {
            throw source.error("unknown field \"." + field + "\"; KubeMod templates see .Target, .Namespace, "
                    + ".SelectedItem and .SelectKeyParts", start);
        }
        position += field.length();
        return fields(new Code(field, true, true), start);
    }

    private Code fields(Code base, int start) {
        StringBuilder path = new StringBuilder(base.text());
        boolean any = false;
        while (peek('.') && identifierAt(position + 1) != null) {
            position++;
            String field = identifier();
            position += field.length();
            path.append('.').append(field);
            any = true;
        }
        if (!any) {
            return base;
        }
        if (!base.path()) {
            throw source.error("a field of a function result cannot be translated", start);
        }
        return new Code(path.toString(), true, true);
    }

    private String string() {
        char quote = text.charAt(position);
        int start = position;
        position++;
        StringBuilder out = new StringBuilder();
        while (position < text.length()) {
            char c = text.charAt(position++);
            if (c == quote) {
                return out.toString();
            }
            if (quote == '"' && c == '\n') {
                break;
            }
            if (c != '\\' || quote == '`') {
                out.append(c);
                continue;
            }
            if (position >= text.length()) {
                break;
            }
            char escaped = text.charAt(position++);
            switch (escaped) {
                case '"', '\\', '\'' -> out.append(escaped);
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'a' -> out.append('\u0007');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'v' -> out.append('\u000b');
                case 'x', 'u', 'U' -> {
                    int length = escaped == 'x' ? 2 : escaped == 'u' ? 4 : 8;
                    int codePoint = hex(position, length);
                    // As Go unquotes: a 4- or 8-digit escape must name a code point, not a surrogate half.
                    if (codePoint < 0 || !Character.isValidCodePoint(codePoint)
                            || escaped != 'x' && Character.getType(codePoint) == Character.SURROGATE) {
                        throw source.error("bad escape in string", position - 2);
                    }
                    out.appendCodePoint(codePoint);
                    position += length;
                }
                default -> throw source.error("unknown escape \\" + escaped + " in string", position - 2);
            }
        }
        throw source.error("unterminated string", start);
    }

    /** The value of {@code length} hex digits at {@code at}, or -1 when they are not all there (no sign allowed). */
    private int hex(int at, int length) {
        if (at + length > text.length()) {
            return -1;
        }
        long value = 0;
        for (int i = at; i < at + length; i++) {
            char c = text.charAt(i);
            int digit = c < 128 ? Character.digit(c, 16) : -1; // ASCII only, as Go
            if (digit < 0) {
                return -1;
            }
            value = value * 16 + digit;
        }
        return value > Integer.MAX_VALUE ? -1 : (int) value;
    }

    private String number() {
        int start = position;
        if (peek('-') || peek('+')) {
            position++;
        }
        while (position < text.length()
                && (Character.isLetterOrDigit(text.charAt(position)) || text.charAt(position) == '.'
                || text.charAt(position) == '_')) {
            position++;
        }
        String number = text.substring(start, position);
        if (!number.matches("[-+]?\\d+(\\.\\d+)?")) {
            throw source.error("number \"" + number + "\" is not supported (decimal numbers only)", start);
        }
        return number.startsWith("+") ? number.substring(1) : number;
    }

    private String identifier() {
        return identifierAt(position);
    }

    private String identifierAt(int at) {
        int end = at;
        while (end < text.length()
                && (Character.isLetter(text.charAt(end)) || text.charAt(end) == '_'
                || end > at && Character.isDigit(text.charAt(end)))) {
            end++;
        }
        return end == at ? null : text.substring(at, end);
    }

    private boolean atCommandEnd() {
        skipSpaces();
        return atActionEnd() || peek('|') || peek(')');
    }

    private boolean atActionEnd() {
        return position >= text.length() || text.startsWith("}}", position) || text.startsWith("-}}", position);
    }

    private boolean peek(char c) {
        return position < text.length() && text.charAt(position) == c;
    }

    private void skipSpaces() {
        while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
            position++;
        }
    }

    private TemplateException error(String message) {
        return source.error(message, position);
    }
}

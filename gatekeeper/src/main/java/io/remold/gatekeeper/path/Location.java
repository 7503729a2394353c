package io.remold.gatekeeper.path;

import java.util.ArrayList;
import java.util.List;

/**
 * Gatekeeper's {@code location} syntax: dot-separated fields ({@code spec.containers}), each optionally followed by
 * one keyed-list selector ({@code [name: foo]}, {@code [port: 8080]}, {@code [name: *]}). Fields, key fields and
 * string key values may be quoted with {@code "} or {@code '} (a backslash takes the next character literally);
 * an unquoted key value made of digits is an int64. Whitespace between tokens is ignored.
 */
public final class Location {
    private Location() {
    }

    /** Parses a location; throws {@link LocationSyntaxException} naming the position and Gatekeeper's reason. */
    public static List<PathNode> parse(String location) {
        return new Parser(location).parse();
    }

    /** The text of a parsed location, quoted where needed, that parses back to the same nodes. */
    public static String format(List<PathNode> nodes) {
        var out = new StringBuilder();
        for (PathNode node : nodes) {
            switch (node) {
                case PathNode.Field field -> {
                    if (!out.isEmpty()) {
                        out.append('.');
                    }
                    out.append(quoted(field.name()));
                }
                case PathNode.KeyedList list -> {
                    out.append('[').append(quoted(list.keyField())).append(": ");
                    if (list.glob()) {
                        out.append('*');
                    } else if (list.keyValue() instanceof Long number) {
                        out.append(number);
                    } else {
                        out.append(quoted((String) list.keyValue()));
                    }
                    out.append(']');
                }
            }
        }
        return out.toString();
    }

    /** A name as the scanner reads it back: bare when it is one identifier token, else double-quoted. */
    private static String quoted(String name) {
        boolean bare = !name.isEmpty() && !isDigit(name.charAt(0)) && name.chars().allMatch(Location::isIdentChar);
        if (bare) {
            return name;
        }
        return '"' + name.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    static boolean isIdentChar(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '-';
    }

    /**
     * A recursive-descent reading of the grammar {@code path := "" | field ("[" key ":" (value | "*") "]")? ("."
     * path-tail)*}, reporting the first offending token the way Gatekeeper's parser does.
     */
    private static final class Parser {
        private static final String UNEXPECTED = "unexpected token";

        private final String text;
        private final Scanner scanner;
        private Token token;

        Parser(String text) {
            this.text = text;
            this.scanner = new Scanner(text);
            this.token = scanner.next();
        }

        List<PathNode> parse() {
            var nodes = new ArrayList<PathNode>();
            if (token.kind() == Token.Kind.EOF) {
                return nodes;
            }
            while (true) {
                if (token.kind() != Token.Kind.IDENT) {
                    throw unexpected("a field name or the end");
                }
                nodes.add(new PathNode.Field(token.text()));
                advance();
                if (token.kind() == Token.Kind.LBRACKET) {
                    nodes.add(keyedList());
                    advance();
                }
                if (token.kind() == Token.Kind.EOF) {
                    return nodes;
                }
                if (token.kind() != Token.Kind.SEPARATOR) {
                    throw unexpected("'.' or the end");
                }
                int separator = token.position();
                advance();
                if (token.kind() == Token.Kind.EOF) {
                    throw new LocationSyntaxException(text, separator, "trailing separators are forbidden");
                }
            }
        }

        /** After {@code [}: {@code key: value]} or {@code key: *]}; leaves the {@code ]} as the current token. */
        private PathNode keyedList() {
            advance();
            if (token.kind() != Token.Kind.IDENT) {
                throw unexpected("a key field in the list selector");
            }
            String keyField = token.text();
            advance();
            if (token.kind() != Token.Kind.COLON) {
                throw unexpected("':' after the key field " + keyField);
            }
            advance();
            PathNode node = switch (token.kind()) {
                case GLOB -> new PathNode.KeyedList(keyField, null, true);
                case IDENT -> new PathNode.KeyedList(keyField, token.text(), false);
                case INT -> new PathNode.KeyedList(keyField, integer(keyField), false);
                default -> throw unexpected("a key value or '*' in the list selector");
            };
            advance();
            if (token.kind() != Token.Kind.RBRACKET) {
                throw unexpected("']' closing the list selector");
            }
            return node;
        }

        /** Decimal only: a leading zero does not mean octal ({@code 0123} is 123). */
        private Long integer(String keyField) {
            long value = 0;
            for (char digit : token.text().toCharArray()) {
                try {
                    value = Math.addExact(Math.multiplyExact(value, 10), digit - '0');
                } catch (ArithmeticException overflow) {
                    throw new LocationSyntaxException(text, token.position(), "invalid integer: " + token.text()
                            + " does not fit in 64 bits (key value for " + keyField + ")");
                }
            }
            return value;
        }

        private void advance() {
            token = scanner.next();
        }

        private LocationSyntaxException unexpected(String expected) {
            return new LocationSyntaxException(text, token.position(),
                    UNEXPECTED + ": expected " + expected + ", got " + token.describe());
        }
    }

    private record Token(Kind kind, String text, int position) {
        enum Kind { IDENT, INT, SEPARATOR, LBRACKET, RBRACKET, GLOB, COLON, EOF, ERROR }

        String describe() {
            return switch (kind) {
                case EOF -> "the end";
                case ERROR -> text;
                case IDENT, INT -> "'" + text + "'";
                default -> text;
            };
        }
    }

    /**
     * Splits a location into tokens. A token starting with a digit is an integer of digits only ({@code 123abc} is
     * two tokens), so an unquoted field cannot start with a digit; other bare names are letters, digits, {@code _}
     * and {@code -}.
     */
    private static final class Scanner {
        private final String text;
        private int at;

        Scanner(String text) {
            this.text = text;
        }

        Token next() {
            while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            int start = at;
            if (at == text.length()) {
                return new Token(Token.Kind.EOF, "", start);
            }
            char c = text.charAt(at);
            if (isDigit(c)) {
                return new Token(Token.Kind.INT, run(Location::isDigit), start);
            }
            if (isIdentChar(c)) {
                return new Token(Token.Kind.IDENT, run(Location::isIdentChar), start);
            }
            at++;
            return switch (c) {
                case '.' -> new Token(Token.Kind.SEPARATOR, "'.'", start);
                case '[' -> new Token(Token.Kind.LBRACKET, "'['", start);
                case ']' -> new Token(Token.Kind.RBRACKET, "']'", start);
                case '*' -> new Token(Token.Kind.GLOB, "'*'", start);
                case ':' -> new Token(Token.Kind.COLON, "':'", start);
                case '"', '\'' -> quotedString(c, start);
                default -> new Token(Token.Kind.ERROR, "invalid character '" + c + "'", start);
            };
        }

        private String run(java.util.function.IntPredicate accepted) {
            int start = at;
            while (at < text.length() && accepted.test(text.charAt(at))) {
                at++;
            }
            return text.substring(start, at);
        }

        private Token quotedString(char quote, int start) {
            var out = new StringBuilder();
            while (at < text.length()) {
                char c = text.charAt(at++);
                if (c == quote) {
                    return new Token(Token.Kind.IDENT, out.toString(), start);
                }
                if (c == '\\' && at < text.length()) {
                    c = text.charAt(at++);
                } else if (c == '\\') {
                    break;
                }
                out.append(c);
            }
            return new Token(Token.Kind.ERROR, "unterminated string", start);
        }
    }
}

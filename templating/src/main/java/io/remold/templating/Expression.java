package io.remold.templating;

import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.List;

/** The syntax tree of what stands inside one tag. {@code evaluate} returns null for a missing value. */
sealed interface Expression {

    JsonValue evaluate(Scope scope);

    /** Where the expression starts in the template source (for render-time errors). */
    int offset();

    record Literal(JsonValue value, int offset) implements Expression {
        @Override
        public JsonValue evaluate(Scope scope) {
            return value;
        }
    }

    /** A head name looked up through the section scopes (or {@code .}, the innermost one), then the segments. */
    record Path(String head, List<Segment> segments, int offset, SourceText source) implements Expression {
        static final String CURRENT = ".";

        @Override
        public JsonValue evaluate(Scope scope) {
            JsonValue value;
            int next = 0;
            if (CURRENT.equals(head)) {
                value = scope.current();
            } else if (Scope.KEY_PARTS.equals(head) && !segments.isEmpty() && segments.getFirst() instanceof Segment.Index index
                    && scope.resolvesInRoot(head)) {
                value = scope.keyPart(index.index()); // SelectKeyParts[i] without building the list
                next = 1;
            } else {
                value = scope.lookup(head);
            }
            for (int i = next; i < segments.size(); i++) {
                if (value == null) {
                    return null;
                }
                value = segments.get(i).apply(value, scope, this);
            }
            return value;
        }
    }

    /** A function call; {@code site} holds what the call keeps between renders (see {@link CallSite}). */
    record Call(Function function, List<Expression> args, int offset, SourceText source, CallSite site)
            implements Expression {
        Call(Function function, List<Expression> args, int offset, SourceText source) {
            this(function, args, offset, source, CallSite.of(function, args));
        }

        @Override
        public JsonValue evaluate(Scope scope) {
            JsonValue[] values = new JsonValue[args.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = args.get(i).evaluate(scope);
            }
            JsonValue result = function.apply(this, scope, values);
            if (result instanceof JsonString text) {
                // each step of a pipeline is bounded, so that no chain of functions can multiply a text unbounded
                scope.charge(TextValues.rendered(text.getString(), source, offset).length(), source, offset);
            }
            return result;
        }

        TemplateException error(String message) {
            return source.error(function.functionName() + ": " + message, offset);
        }
    }

    /** A string literal in a regex position, compiled once when the template is compiled. */
    record RegexLiteral(String regex, com.google.re2j.Pattern pattern, JsonValue value, int offset)
            implements Expression {
        RegexLiteral(String regex, com.google.re2j.Pattern pattern, int offset) {
            this(regex, pattern, Json.provider().createValue(regex), offset);
        }

        @Override
        public JsonValue evaluate(Scope scope) {
            return value;
        }
    }
}

package io.remold.templating;

import com.samskivert.mustache.Mustache;
import com.samskivert.mustache.MustacheException;
import com.samskivert.mustache.Template;
import jakarta.json.JsonArray;
import jakarta.json.JsonValue;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Text with tags. Text whose tags are all variables is rendered directly (text and values concatenated, as jmustache
 * would); text with sections or comments is rendered by jmustache. jmustache only ever sees generated names
 * ({@code _e0}, {@code _e1}, ...): each stands for an {@link Expression} parsed here, evaluated against the
 * {@link Scope} jmustache hands back, so keys with dots, indices and pipes never reach its own name lookup. Sections
 * iterate lists and nest the scope.
 */
final class MustacheText {
    private static final String NAME_PREFIX = "_e";
    /**
     * Deepest nesting of sections: real templates nest two or three, and jmustache compiles and renders each level
     * with a few stack frames; the elements they enter are bounded per render by {@link Scope#MAX_SECTION_ELEMENTS}.
     */
    static final int MAX_SECTION_DEPTH = 16;

    private final Template template;
    private final String constant;
    /** Text without sections or comments: literal Strings and Expressions, rendered without jmustache. */
    private final Object[] parts;
    /** Where a render-time error is reported: the source and the offset of the first tag. */
    private final SourceText source;
    private final int offset;

    private MustacheText(String constant) {
        this(null, constant, null, null, 0);
    }

    private MustacheText(Template template, String constant, Object[] parts, SourceText source, int offset) {
        this.template = template;
        this.constant = constant;
        this.parts = parts;
        this.source = source;
        this.offset = offset;
    }

    /**
     * Compiles text pieces; {@code where} completes the message when a section is not closed in the same piece of
     * text (e.g. " inside the same YAML scalar").
     */
    static MustacheText compile(SourceText source, List<Tags.Piece> pieces, String where) {
        if (pieces.stream().noneMatch(Tags.Tag.class::isInstance)) {
            StringBuilder text = new StringBuilder();
            pieces.forEach(piece -> text.append(((Tags.Text) piece).text()));
            return new MustacheText(text.toString());
        }
        if (pieces.stream().allMatch(piece -> piece instanceof Tags.Text
                || piece instanceof Tags.Tag tag && tag.kind() == Tags.Kind.VARIABLE)) {
            return direct(source, pieces);
        }
        return viaJmustache(source, pieces, where);
    }

    /**
     * Text and variable tags only: what jmustache would do is to concatenate the text and the values, so do that
     * directly. (Only section and comment tags are subject to Mustache's standalone-line rule.)
     */
    private static MustacheText direct(SourceText source, List<Tags.Piece> pieces) {
        List<Object> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        for (Tags.Piece piece : pieces) {
            if (piece instanceof Tags.Text text) {
                literal.append(text.text());
            } else {
                Tags.Tag tag = (Tags.Tag) piece;
                if (!literal.isEmpty()) {
                    parts.add(literal.toString());
                    literal.setLength(0);
                }
                parts.add(ExpressionParser.parse(source, tag.content(), tag.contentOffset()));
            }
        }
        if (!literal.isEmpty()) {
            parts.add(literal.toString());
        }
        return new MustacheText(null, null, parts.toArray(), source, firstTag(pieces));
    }

    /** For tests: compiles through jmustache even when the text has no sections. */
    static MustacheText compileViaJmustache(SourceText source, List<Tags.Piece> pieces, String where) {
        if (pieces.stream().noneMatch(Tags.Tag.class::isInstance)) {
            return compile(source, pieces, where);
        }
        return viaJmustache(source, pieces, where);
    }

    private static MustacheText viaJmustache(SourceText source, List<Tags.Piece> pieces, String where) {
        StringBuilder mustache = new StringBuilder();
        List<Expression> expressions = new ArrayList<>();
        BitSet sections = new BitSet();
        Deque<Tags.Tag> open = new ArrayDeque<>();
        Deque<Integer> openIndex = new ArrayDeque<>();
        for (int i = 0; i < pieces.size(); i++) {
            switch (pieces.get(i)) {
                case Tags.Text text -> {
                    String literal = text.text();
                    if (literal.endsWith("{") && i + 1 < pieces.size()) {
                        // "{" right before a tag would read as jmustache's "{{{": hand it over as a value instead.
                        mustache.append(literal, 0, literal.length() - 1);
                        mustache.append("{{").append(NAME_PREFIX).append(expressions.size()).append("}}");
                        expressions.add(new Expression.Literal(Json.provider().createValue("{"), text.offset()));
                    } else {
                        mustache.append(literal);
                    }
                }
                case Tags.Tag tag -> {
                    switch (tag.kind()) {
                        case VARIABLE -> {
                            mustache.append("{{").append(NAME_PREFIX).append(expressions.size()).append("}}");
                            expressions.add(ExpressionParser.parse(source, tag.content(), tag.contentOffset()));
                        }
                        case SECTION, INVERTED -> {
                            if (open.size() == MAX_SECTION_DEPTH) {
                                throw source.error("sections nested deeper than " + MAX_SECTION_DEPTH + " levels",
                                        tag.offset());
                            }
                            int index = expressions.size();
                            mustache.append(tag.kind() == Tags.Kind.SECTION ? "{{#" : "{{^")
                                    .append(NAME_PREFIX).append(index).append("}}");
                            expressions.add(ExpressionParser.parse(source, tag.content(), tag.contentOffset()));
                            sections.set(index);
                            open.push(tag);
                            openIndex.push(index);
                        }
                        case CLOSE -> {
                            if (open.isEmpty()) {
                                throw source.error("{{/" + tag.name() + "}} closes no open section" + where, tag.offset());
                            }
                            Tags.Tag opening = open.pop();
                            if (!opening.name().equals(tag.name())) {
                                throw source.error("{{/" + tag.name() + "}} does not close the section {{"
                                        + (opening.kind() == Tags.Kind.SECTION ? "#" : "^") + opening.name() + "}}",
                                        tag.offset());
                            }
                            mustache.append("{{/").append(NAME_PREFIX).append(openIndex.pop()).append("}}");
                        }
                        case COMMENT -> mustache.append("{{!}}");
                    }
                }
            }
        }
        if (!open.isEmpty()) {
            Tags.Tag unclosed = open.peek();
            throw source.error("section {{" + (unclosed.kind() == Tags.Kind.SECTION ? "#" : "^") + unclosed.name()
                    + "}} is not closed" + where, unclosed.offset());
        }
        Template template = Mustache.compiler()
                .escapeHTML(false)
                .defaultValue("")
                // jmustache formats its default value (for missing names) too
                .withFormatter(value -> value instanceof JsonValue json ? TextValues.text(json) : value.toString())
                .withCollector(new ExpressionCollector(expressions.toArray(Expression[]::new), sections, source))
                .compile(mustache.toString());
        return new MustacheText(template, null, null, source, firstTag(pieces));
    }

    private static int firstTag(List<Tags.Piece> pieces) {
        return pieces.stream().filter(Tags.Tag.class::isInstance).findFirst().orElseThrow().offset();
    }

    SourceText source() {
        return source;
    }

    boolean isConstant() {
        return constant != null;
    }

    /** The expression when the text is exactly one variable tag, else null. */
    Expression singleExpression() {
        return parts != null && parts.length == 1 && parts[0] instanceof Expression expression ? expression : null;
    }

    String render(Scope scope) {
        if (constant != null) {
            return constant;
        }
        String text = parts != null ? renderDirect(scope) : renderSections(scope);
        scope.charge(text.length(), source, offset);
        return text;
    }

    private String renderSections(Scope scope) {
        var out = new BoundedWriter(source, offset);
        try {
            template.execute(scope, out);
            return out.text.toString();
        } catch (MustacheException e) {
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                if (cause instanceof TemplateException templateException) {
                    throw templateException;
                }
            }
            throw e;
        }
    }

    private String renderDirect(Scope scope) {
        if (parts.length == 1 && parts[0] instanceof Expression expression) {
            return TextValues.rendered(TextValues.text(expression.evaluate(scope)), source, expression.offset());
        }
        StringBuilder out = new StringBuilder(64);
        for (Object part : parts) {
            if (part instanceof String text) {
                out.append(text);
            } else {
                Expression expression = (Expression) part;
                TextValues.append(out, expression.evaluate(scope));
                TextValues.rendered(out, source, expression.offset());
            }
        }
        return out.toString();
    }

    /** What jmustache renders into: refuses to grow past {@link TextValues#MAX_RENDERED_CHARS}. */
    private static final class BoundedWriter extends Writer {
        private final StringBuilder text = new StringBuilder(64);
        private final SourceText source;
        private final int offset;

        BoundedWriter(SourceText source, int offset) {
            this.source = source;
            this.offset = offset;
        }

        @Override
        public void write(char[] chars, int from, int length) {
            text.append(chars, from, length);
            TextValues.rendered(text, source, offset);
        }

        @Override
        public void write(String chars, int from, int length) {
            text.append(chars, from, from + length);
            TextValues.rendered(text, source, offset);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    /** What a section tag (at {@code offset}) hands to jmustache: the value and the scope it was evaluated in. */
    private record SectionValue(Scope scope, JsonValue value, SourceText source, int offset) {
        Iterator<Scope> scopes() {
            if (value instanceof JsonArray list) {
                Iterator<JsonValue> elements = list.iterator();
                return new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return elements.hasNext();
                    }

                    @Override
                    public Scope next() {
                        return scope.nest(elements.next(), source, offset);
                    }
                };
            }
            if (TextValues.isFalsey(value)) {
                return Collections.emptyIterator();
            }
            return List.of(scope.nest(value, source, offset)).iterator();
        }
    }

    /** Resolves the generated names to expressions; everything jmustache iterates is a {@link SectionValue}. */
    private record ExpressionCollector(Expression[] expressions, BitSet sections, SourceText source)
            implements Mustache.Collector {
        @Override
        public Iterator<?> toIterator(Object value) {
            return value instanceof SectionValue section ? section.scopes() : null;
        }

        @Override
        public Mustache.VariableFetcher createFetcher(Object context, String name) {
            if (!(context instanceof Scope) || !name.startsWith(NAME_PREFIX)) {
                return null;
            }
            int index = Integer.parseInt(name.substring(NAME_PREFIX.length()));
            Expression expression = expressions[index];
            if (sections.get(index)) {
                return (scope, ignored) -> new SectionValue((Scope) scope, expression.evaluate((Scope) scope), source,
                        expression.offset());
            }
            return (scope, ignored) -> expression.evaluate((Scope) scope);
        }

        @Override
        public <K, V> Map<K, V> createFetcherCache() {
            return new ConcurrentHashMap<>();
        }
    }
}

package io.remold.templating;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every compile error names what is wrong and where (1-based line and column in the template source). */
class CompileErrorTest {
    private static final Consumer<String> TEXT = Templates::compileText;
    private static final Consumer<String> VALUE = Templates::compileValue;

    static Stream<Arguments> errors() {
        return Stream.of(
                // tags
                Arguments.of(TEXT, "a {{Target.metadata", "unclosed tag: \"}}\" expected", 1, 3),
                Arguments.of(TEXT, "a {{Target {{Namespace}}", "unclosed tag: \"}}\" expected", 1, 3),
                Arguments.of(TEXT, "{{{Namespace}}", "unclosed tag: \"}}}\" expected", 1, 1),
                Arguments.of(TEXT, "x\n  {{ }}", "empty tag", 2, 5),
                Arguments.of(TEXT, "{{> partial}}", "Mustache tag \"{{>\" (partials, blocks, delimiters) is not supported", 1, 1),
                Arguments.of(TEXT, "{{=<% %>=}}", "Mustache tag \"{{=\" (partials, blocks, delimiters) is not supported", 1, 1),
                // sections
                Arguments.of(TEXT, "{{#Target.spec}}x", "section {{#Target.spec}} is not closed", 1, 1),
                Arguments.of(TEXT, "a\n{{^Target.spec}}x", "section {{^Target.spec}} is not closed", 2, 1),
                Arguments.of(TEXT, "x{{/Target.spec}}", "{{/Target.spec}} closes no open section", 1, 2),
                Arguments.of(TEXT, "{{#a}}{{/b}}", "{{/b}} does not close the section {{#a}}", 1, 7),
                Arguments.of(VALUE, "- {{#Target.spec.containers}}\n- {{name}}\n- {{/Target.spec.containers}}",
                        "section {{#Target.spec.containers}} is not closed inside the same YAML scalar "
                                + "(sections cannot span YAML structure)", 1, 3),
                Arguments.of(VALUE, "a: {{#Target.spec.paused}}x\nb: y{{/Target.spec.paused}}",
                        "section {{#Target.spec.paused}} is not closed inside the same YAML scalar "
                                + "(sections cannot span YAML structure)", 1, 4),
                // expressions
                Arguments.of(TEXT, "{{ Namespace | foo }}", "unknown function \"foo\"", 1, 16),
                Arguments.of(TEXT, "{{ foo Namespace }}", "unknown function \"foo\"", 1, 4),
                Arguments.of(TEXT, "{{ Namespace | }}", "a function name is expected after \"|\"", 1, 16),
                Arguments.of(TEXT, "{{ | upper }}", "unexpected \"|\"", 1, 4),
                Arguments.of(TEXT, "{{ Namespace | replace \"a\" }}", "replace takes 3 arguments, got 2", 1, 16),
                Arguments.of(TEXT, "{{ upper Namespace Operation }}", "upper takes 1 argument, got 2", 1, 4),
                Arguments.of(TEXT, "{{ quote }}", "quote takes at least 1 argument, got 0", 1, 4),
                Arguments.of(TEXT, "{{ Namespace | regexFind \"(a\" }}",
                        "bad regular expression \"(a\": missing closing )", 1, 26),
                Arguments.of(TEXT, "{{ regexReplaceAll \"[\" \"x\" Namespace }}",
                        "bad regular expression \"[\": missing closing ]", 1, 20),
                Arguments.of(TEXT, "{{ \"abc }}", "unclosed tag: \"}}\" expected", 1, 1),
                Arguments.of(TEXT, "{{ \"a\\qb\" }}", "unknown escape \\q", 1, 6),
                Arguments.of(TEXT, "{{ \"\\u12\" }}", "bad \\u escape", 1, 5),
                Arguments.of(TEXT, "{{ Target.metadata.labels['x'] }}", "unexpected \"'\"", 1, 27),
                Arguments.of(TEXT, "{{ Target. }}", "a name is expected after \".\"", 1, 11),
                Arguments.of(TEXT, "{{ Target[ }}", "an operand is expected", 1, 12),
                Arguments.of(TEXT, "{{ Target[\"a\" }}", "\"]\" expected at the end of the tag", 1, 15),
                Arguments.of(TEXT, "{{ Target[true] }}", "a key or an index is expected inside [...]", 1, 11),
                Arguments.of(TEXT, "{{ (Namespace }}", "\")\" expected at the end of the tag", 1, 15),
                Arguments.of(TEXT, "{{ Namespace ) }}", "unexpected \")\"", 1, 14),
                Arguments.of(TEXT, "{{ Namespace Operation }}", "unexpected \"O\"", 1, 14),
                Arguments.of(TEXT, "{{ 1.2.3 }}", "bad number \"1.2.3\"", 1, 4),
                Arguments.of(TEXT, "{{ # }}", "unexpected \"#\"", 1, 4),
                // YAML around the tags
                Arguments.of(VALUE, "a: [1, {{Namespace}}", "invalid YAML: while parsing a flow sequence: expected ',' or ']', but got <stream end>", 1, 21),
                Arguments.of(VALUE, "a: {{Namespace}}\n b: c", "invalid YAML: mapping values are not allowed here", 2, 3),
                Arguments.of(VALUE, "a: \"\\U", "invalid YAML: bad escape in a double-quoted string", 1, 1),
                Arguments.of(VALUE, "a: 1\na: {{Namespace}}", "duplicate key \"a\"", 2, 1),
                Arguments.of(VALUE, "a: 1 # {{Namespace}}", "a tag can only stand in a YAML value or key (not in a comment, anchor or YAML tag)", 1, 8),
                Arguments.of(VALUE, "a: &x{{Namespace}} 1", "a tag can only stand in a YAML value or key (not in a comment, anchor or YAML tag)", 1, 6),
                Arguments.of(VALUE, "a: &x\n- b\n- *x", "a YAML alias cannot refer to a node that contains it", 1, 4),
                Arguments.of(TEXT, "{{ Target.spec.containers[4294967296] }}", "index 4294967296 is too large", 1, 27),
                Arguments.of(TEXT, "{{ replace \"}}\" \"x\" Namespace", "unclosed tag: \"}}\" expected", 1, 1),
                Arguments.of(VALUE, "[a]: {{Namespace}}", "a YAML key must be a scalar", 1, 1),
                Arguments.of(VALUE, "a: 1\n---\nb: 2", "invalid YAML: expected a single document in the stream: but found another document", 2, 1),
                Arguments.of(VALUE, "a:\n  b: {{ Namespace | nope }}", "unknown function \"nope\"", 2, 21));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @MethodSource("errors")
    void reportsPosition(Consumer<String> compile, String source, String message, int line, int column) {
        TemplateException e = assertThrows(TemplateException.class, () -> compile.accept(source));
        assertThat(e.getMessage(), is(message + " at line " + line + ", column " + column));
        assertThat(e.line(), is(line));
        assertThat(e.column(), is(column));
        assertThat(e.source(), is(source));
    }
}

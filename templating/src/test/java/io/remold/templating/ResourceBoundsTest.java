package io.remold.templating;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every bound on what a rule author (or an object) controls: static ones refuse the template when it is compiled,
 * with its position; those that depend on the object fail the render with a TemplateException.
 */
class ResourceBoundsTest {

    private static TemplateContext target(JsonValue target) {
        return new TemplateContext(target, "shop", null, List.of(), "CREATE", null);
    }

    private static JsonValue list(int size, JsonValue element) {
        JsonArrayBuilder list = Fixtures.JSON.createArrayBuilder();
        for (int i = 0; i < size; i++) {
            list.add(element);
        }
        return list.build();
    }

    /** Parentheses and brackets recurse in the parser and the evaluator: refused past the bound, where they go too deep. */
    @ParameterizedTest
    @ValueSource(strings = {"(", "Target["})
    void expressionsNestedDeeperThanTheBoundAreRefused(String opening) {
        int depth = ExpressionParser.MAX_NESTING; // the tag's pipeline is the first level
        String closing = opening.equals("(") ? ")" : "]";
        Templates.compileText("{{ " + opening.repeat(depth - 1) + "Target" + closing.repeat(depth - 1) + " }}");
        String tooDeep = "{{ " + opening.repeat(depth) + "Target" + closing.repeat(depth) + " }}";
        var e = assertThrows(TemplateException.class, () -> Templates.compileText(tooDeep));
        assertThat(e.getMessage(), containsString("nested deeper than " + ExpressionParser.MAX_NESTING + " levels"));
        assertThat(e.column(), is(3 + depth * opening.length() + 1));
    }

    @Test
    void goTemplateActionsNestedDeeperThanTheBoundAreRefused() {
        int depth = 10_000;
        var e = assertThrows(TemplateException.class, () -> Templates.translateGoTemplate(
                "{{ " + "(".repeat(depth) + ".Target.x" + ")".repeat(depth) + " }}"));
        assertThat(e.getMessage(), containsString("nested deeper than " + ExpressionParser.MAX_NESTING + " levels"));
    }

    @Test
    void sectionsNestedDeeperThanTheBoundAreRefused() {
        int depth = MustacheText.MAX_SECTION_DEPTH + 1;
        String tooDeep = "{{#Target}}".repeat(depth) + "x" + "{{/Target}}".repeat(depth);
        var e = assertThrows(TemplateException.class, () -> Templates.compileText(tooDeep));
        assertThat(e.getMessage(), containsString("sections nested deeper than " + MustacheText.MAX_SECTION_DEPTH));
        assertThat(e.column(), is(1 + MustacheText.MAX_SECTION_DEPTH * "{{#Target}}".length()));
    }

    /** Nested sections multiply the elements they enter, even with an empty body that renders nothing. */
    @Test
    void aRenderEntersAtMostTheBoundOfSectionElements() {
        JsonValue target = Fixtures.JSON.createObjectBuilder().add("l", list(400, JsonValue.TRUE)).build();
        TextTemplate template = Templates.compileText("{{#Target.l}}{{#Target.l}}{{/Target.l}}{{/Target.l}}");
        var e = assertThrows(TemplateException.class, () -> template.render(target(target)));
        assertThat(e.getMessage(), containsString("more than " + Scope.MAX_SECTION_ELEMENTS + " elements"));
        assertThat(e.column(), is(17)); // the inner section
    }

    /** Each way text grows is bounded: sections, text around tags, a value printed as text, chains of functions. */
    @ParameterizedTest
    @ValueSource(strings = {
            "{{#Target.l}}{{Target.s}}{{/Target.l}}",
            "x{{Target.big}}",
            "{{Target.l}}",
            "{{ Target.s | replace \"a\" \"aaaaaaaaaa\" | replace \"a\" \"aaaaaaaaaa\" | replace \"a\" \"aaaaaaaaaaaaaaaaaaaa\" }}",
            "{{ Target.s | replace \"\" \"bbbbbbbbbb\" | replace \"\" \"bbbbbbbbbb\" | replace \"\" \"bbbbbbbbbb\" }}",
            "{{ Target.s | regexReplaceAll \"a\" Target.s | regexReplaceAll \"a\" \"$0$0\" }}",
            "{{ Target.l | join Target.s }}"})
    void aRenderedTextHasAtMostTheBoundOfCharacters(String source) {
        String s = "a".repeat(1000);
        JsonValue target = Fixtures.JSON.createObjectBuilder().add("s", s).add("l", list(2000, Fixtures.JSON.createValue(s)))
                .add("big", "b".repeat(TextValues.MAX_RENDERED_CHARS)).build();
        var e = assertThrows(TemplateException.class, () -> Templates.compileText(source).render(target(target)));
        assertThat(e.getMessage(), containsString("renders more than " + TextValues.MAX_RENDERED_CHARS + " characters"));
        var value = assertThrows(TemplateException.class,
                () -> Templates.compileValue("v: '" + source + "'").render(target(target)));
        assertThat(value.getMessage(), containsString("renders more than " + TextValues.MAX_RENDERED_CHARS));
    }

    @Test
    void aValueNestedDeeperThanTheYamlBoundIsRefused() {
        int depth = ValueCompiler.MAX_YAML_DEPTH + 1;
        var e = assertThrows(TemplateException.class,
                () -> Templates.compileValue("[".repeat(depth) + "{{Target.kind}}" + "]".repeat(depth)));
        assertThat(e.getMessage(), containsString("Nesting Depth exceeded max " + ValueCompiler.MAX_YAML_DEPTH));
    }

    /** A literal pattern is refused when compiled; one computed from the object when the function runs. */
    @Test
    void regularExpressionsAreBounded() {
        String huge = "((a{1000}){1000}){1000}";
        var e = assertThrows(TemplateException.class,
                () -> Templates.compileText("{{ regexFind \"" + huge + "\" Target.s }}"));
        assertThat(e.getMessage(), containsString("regular expression too large"));
        assertThat(e.column(), is(14));
        JsonValue target = Fixtures.JSON.createObjectBuilder().add("s", "a").add("p", huge).build();
        var atRender = assertThrows(TemplateException.class,
                () -> Templates.compileText("{{ regexFind Target.p Target.s }}").render(target(target)));
        assertThat(atRender.getMessage(), containsString("regular expression too large"));
    }

    private static TemplateContext counted(JsonValue target, RenderBudget budget) {
        return new TemplateContext(target, "shop", null, List.of(), "CREATE", null, ExternalData.NONE, budget);
    }

    /**
     * F3: each text a template produces counts against its rule, its request and the server's total, so that no
     * number of values (each within its own bound) adds up past them; the total comes back when a request ends.
     */
    @Test
    void rendersCountAgainstTheRuleTheRequestAndTheTotal() {
        JsonValue target = Fixtures.JSON.createObjectBuilder().add("s", "a".repeat(4)).build();
        TextTemplate text = Templates.compileText("x{{ Target.s }}"); // 5 characters
        var total = new AtomicLong();
        var first = new RenderBudget(10, 15, 25, total);
        text.render(counted(target, first));
        text.render(counted(target, first));
        var rule = assertThrows(TemplateException.class, () -> text.render(counted(target, first)));
        assertThat(rule.getMessage(), containsString("renders more than 10 characters in this rule"));
        first.startRule();
        text.render(counted(target, first));
        var request = assertThrows(TemplateException.class, () -> text.render(counted(target, first)));
        assertThat(request.getMessage(), containsString("renders more than 15 characters in this admission request"));

        var second = new RenderBudget(10, 15, 25, total);
        text.render(counted(target, second));
        text.render(counted(target, second));
        second.startRule();
        var all = assertThrows(TemplateException.class, () -> text.render(counted(target, second)));
        assertThat(all.getMessage(), containsString("the server renders more than 25 characters for the admission"
                + " requests in flight"));
        first.close();
        assertThat(total.get(), is(10L));
        text.render(counted(target, second));
        second.close();
        assertThat(total.get(), is(0L));
    }

    /** A context without a budget gives each render one of its own: reusing it never adds up. */
    @Test
    void aContextWithoutABudgetCountsEachRenderAlone() {
        JsonValue target = Fixtures.JSON.createObjectBuilder().add("s", "a".repeat(1000)).build();
        TemplateContext reused = target(target);
        TextTemplate text = Templates.compileText("x{{ Target.s }}");
        for (long rendered = 0; rendered <= RenderBudget.MAX_PER_REQUEST; rendered += 1001) {
            text.render(reused);
        }
    }

    /** Function results count too: a chain that stays within the text bound at each step still adds up. */
    @Test
    void functionResultsCountAgainstTheBudget() {
        JsonValue target = Fixtures.JSON.createObjectBuilder().add("s", "a".repeat(100)).build();
        var budget = new RenderBudget(250, 1000, 1000, new AtomicLong());
        var e = assertThrows(TemplateException.class, () -> Templates.compileValue("{{ Target.s | upper | lower | upper }}")
                .render(counted(target, budget)));
        assertThat(e.getMessage(), containsString("renders more than 250 characters in this rule"));
    }

    /** F4: a number beyond a float64's range (only a rule's own text can hold one) prints in exponent notation. */
    @Test
    void numbersPrintInBoundedText() {
        JsonValue target = Fixtures.JSON.createObjectBuilder()
                .add("huge", new BigDecimal("1e999999999")).add("tiny", new BigDecimal("-1.50e-999999999"))
                .add("small", new BigDecimal("1.5e-7")).add("plain", new BigDecimal("2.50e3")).build();
        TextTemplate text = Templates.compileText("{{Target.huge}} {{Target.tiny}} {{Target.small}} {{Target.plain}}");
        assertThat(text.render(target(target)), is("1E+999999999 -1.5E-999999999 0.00000015 2500"));
    }
}

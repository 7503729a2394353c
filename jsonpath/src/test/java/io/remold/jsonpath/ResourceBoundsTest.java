package io.remold.jsonpath;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every bound on what a rule author (or an object) controls stops the evaluation with this module's own errors. */
class ResourceBoundsTest {

    /** 23 characters that RE2J would expand to 10^9 instructions: refused at compile time, naming the literal. */
    @Test
    void aRegexWhoseProgramIsTooLargeIsRefusedWhenCompiled() {
        String expression = "$.a =~ \"((a{1000}){1000}){1000}\"";
        var e = assertThrows(JsonPathSyntaxException.class, () -> JsonPath.compile(expression));
        assertEquals(expression.indexOf('"'), e.position());
        assertThat(e.getMessage(), containsString("more than " + BoundedRegex.MAX_PROGRAM + " instructions"));
    }

    /** A pattern taken from the document is bounded the same way, when it is evaluated. */
    @Test
    void aRegexFromTheDocumentIsBoundedWhenEvaluated() {
        JsonValue document = Values.PROVIDER.createObjectBuilder().add("a", "x")
                .add("p", "((a{1000}){1000}){1000}").build();
        var e = assertThrows(JsonPathEvaluationException.class,
                () -> JsonPath.compile("$.a =~ $.p").evaluate(document));
        assertThat(e.getMessage(), containsString("regular expression too large"));
    }

    @Test
    void aRegexLongerThanTheBoundIsRefused() {
        var e = assertThrows(PatternSyntaxException.class,
                () -> BoundedRegex.compile("a".repeat(BoundedRegex.MAX_CHARS + 1)));
        assertThat(e.getDescription(), containsString("longer than " + BoundedRegex.MAX_CHARS));
    }

    /** Nested groups recurse in RE2J (4,000 overflow its stack in a small thread): refused past the bound. */
    @Test
    void groupsNestedDeeperThanTheBoundAreRefused() {
        BoundedRegex.compile("(".repeat(BoundedRegex.MAX_NESTING) + "a" + ")".repeat(BoundedRegex.MAX_NESTING));
        var e = assertThrows(PatternSyntaxException.class,
                () -> BoundedRegex.compile("(?:".repeat(2000) + "a" + ")".repeat(2000)));
        assertThat(e.getDescription(), containsString("nested deeper than " + BoundedRegex.MAX_NESTING));
    }

    /** The estimate never undercounts RE2J's program, and real patterns stay well within the bound. */
    @ParameterizedTest
    @ValueSource(strings = {
            "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$",
            "[a-z0-9]{1,253}",
            "^(docker\\.io/|quay\\.io/)?[a-z0-9]+(?:[._-][a-z0-9]+)*(:[\\w][\\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$",
            "(?i)^(kube-system|kube-public|default)$",
            "a{1000}", "(a){0,3}", "a{2,}", "(?:\\w{100}){40}", "a||b", "()", "(?:)", "[[:alpha:]]{3}", "[]a]{9}",
            "\\Qab{3}\\E", "\\x{41}{2}", "\\p{Greek}{5}", "(?P<name>a+?)*", "a{,3}", "x{0}", "^$\\b"})
    void theEstimateIsAnUpperBoundOfTheProgram(String regex) {
        long estimate = BoundedRegex.estimatedProgram(regex);
        assertThat(estimate, greaterThanOrEqualTo((long) Pattern.compile(regex).programSize()));
        assertThat(BoundedRegex.compile(regex).pattern(), is(regex));
    }

    /** Selections are held at once: a select that would yield more than the bound fails. */
    @Test
    void aSelectYieldsAtMostTheBound() {
        JsonArrayBuilder items = Values.PROVIDER.createArrayBuilder();
        for (int i = 0; i <= Evaluator.MAX_SELECTIONS; i++) {
            items.add(i);
        }
        JsonValue document = Values.PROVIDER.createObjectBuilder().add("items", items).build();
        var e = assertThrows(JsonPathEvaluationException.class,
                () -> JsonPath.compile("$.items[*]").select(document));
        assertThat(e.getMessage(), containsString("more than " + Evaluator.MAX_SELECTIONS));
        assertEquals(Evaluator.MAX_SELECTIONS, JsonPath.compile("$.items[1:]").select(document).size());
    }

    /**
     * {@code ..} recurses once per level; a document deeper than the bound (only patches can make one) fails, in a
     * filter too, instead of overflowing the stack.
     */
    @ParameterizedTest
    @ValueSource(strings = {"$..x", "$[?(isDefined(@..x))]"})
    void recursiveDescentStopsAtTheDepthBound(String expression) {
        JsonValue deep = Values.PROVIDER.createObjectBuilder().add("x", 1).build();
        for (int i = 0; i < 50_000; i++) {
            deep = Values.PROVIDER.createArrayBuilder().add(deep).build();
        }
        JsonValue document = deep;
        var e = assertThrows(JsonPathEvaluationException.class, () -> JsonPath.compile(expression).select(document));
        assertThat(e.getMessage(), containsString("deeper than " + Evaluator.MAX_DESCENT_DEPTH + " levels"));
    }
}

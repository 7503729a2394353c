package io.remold.engine;

import static io.remold.engine.Rules.rule;
import static io.remold.engine.TestJson.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bounds of the modules below, as a rule author meets them: static ones refuse the rule at admission with the
 * field and position, those that depend on the object fail that rule alone.
 */
class ResourceBoundsTest {

    private static String objectWithItems(int count) {
        return "{'kind':'ConfigMap','spec':{'items':["
                + IntStream.range(0, count).mapToObj(i -> "0").collect(Collectors.joining(",")) + "]}}";
    }

    private static Decision mutate(int items) {
        return Engine.builder().rules(List.of(
                rule("ns", "a-every-item", "{type: Patch, match: [{select: '$.kind'}],"
                        + " patch: [{select: '$.spec.items[*]', op: replace, path: '/spec/items/#0', value: '1'}]}"),
                rule("ns", "b-fine", "{type: Patch, match: [{select: '$.kind'}],"
                        + " patch: [{op: add, path: /metadata, value: '{a: b}'}]}")))
                .build().mutate(AdmissionRequest.create("ns", json(objectWithItems(items))));
    }

    /** A select that expands to more operations than the bound fails its rule only; the next rule still applies. */
    @Test
    void aRuleGivesAtMostTheBoundOfOperations() {
        Decision d = mutate(CompiledRule.MAX_OPERATIONS + 1);
        assertThat(d.outcomes(), hasSize(2));
        assertThat(d.outcomes().get(0).error(),
                equalTo("spec.patch[0]: the rule gives more than " + CompiledRule.MAX_OPERATIONS + " operations"));
        assertThat(d.outcomes().get(0).applied(), empty());
        assertThat(d.outcomes().get(1).error(), nullValue());
        assertThat(d.patch(), equalTo(json("[{'op':'add','path':'/metadata','value':{'a':'b'}}]")));

        Decision atTheBound = mutate(CompiledRule.MAX_OPERATIONS);
        assertThat(atTheBound.outcomes().get(0).error(), nullValue());
        assertThat(atTheBound.outcomes().get(0).applied().size(), is(CompiledRule.MAX_OPERATIONS));
    }

    /** Regular expressions of match items go through the same bound as those of queries and templates. */
    @ParameterizedTest
    @ValueSource(strings = {"matchRegex: '((a{1000}){1000}){1000}'", "select: '$.kind =~ \"((a{1000}){1000}){1000}\"'"})
    void aMatchItemWithARegexTooLargeIsRefusedAtAdmission(String item) {
        String spec = "{type: Reject, match: [{" + (item.startsWith("select") ? item : "select: '$.kind', " + item) + "}]}";
        RuleCompilation compiled = Engine.compile(rule("ns", "r", spec));
        assertThat(compiled.errors(), hasSize(1));
        assertThat(compiled.errors().getFirst().field(),
                is(item.startsWith("select") ? "spec.match[0].select" : "spec.match[0].matchRegex"));
        assertThat(compiled.errors().getFirst().message(), containsString("regular expression too large"));
    }

    /**
     * A match item whose query reaches a bound decides nothing: a Reject rule then rejects (an object large enough
     * must not slip past it), a Patch rule changes nothing and says why.
     */
    @Test
    void aMatchItemAtABoundFailsRejectRulesClosedAndPatchRulesAlone() {
        var request = AdmissionRequest.create("ns", json(objectWithItems(100_001)));
        Engine engine = Engine.builder().rules(List.of(
                rule("ns", "no-ones", "{type: Reject, match: [{select: '$.spec.items[*]', matchValue: '1'}]}"),
                rule("ns", "mark", "{type: Patch, match: [{select: '$.spec.items[*]', matchValue: '0'}],"
                        + " patch: [{op: add, path: /metadata, value: '{a: b}'}]}"))).build();
        Decision validated = engine.validate(request);
        assertThat(validated.rejections(), hasSize(1));
        assertThat(validated.rejections().getFirst().message(),
                containsString("the rule cannot be evaluated: selects 100001 nodes, more than 100000"));
        Decision mutated = engine.mutate(request);
        assertThat(mutated.patch(), equalTo(json("[]")));
        assertThat(mutated.outcomes().getFirst().error(), containsString("match: selects 100001 nodes"));
    }
}

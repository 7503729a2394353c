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

import io.remold.templating.RenderBudget;
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

    /** A ConfigMap in the review's form: {@code keys} keys k0.. with the value "a". */
    private static String configMap(int keys) {
        return "{'kind':'ConfigMap','metadata':{'name':'c'},'data':{"
                + IntStream.range(0, keys).mapToObj(i -> "'k" + i + "':'a'").collect(Collectors.joining(",")) + "}}";
    }

    /**
     * F3: the review's amplify rule renders 1 MiB per key; over 300 keys it would hold 300 MiB. It fails at its
     * per-rule budget, changes nothing, and the next rule still applies.
     */
    @Test
    void aRuleThatRendersMoreThanItsBudgetFailsAlone() {
        String amplify = "{{ SelectedItem" + " | replace \"a\" \"aaaaaaaaaa\"".repeat(6) + " }}";
        Engine engine = Engine.builder().rules(List.of(
                rule("ns", "amplify", "{type: Patch, match: [{select: '$.kind', matchValue: ConfigMap}],"
                        + " patch: [{op: add, select: '$.data.*', path: '/data/#0', value: '" + amplify + "'}]}"),
                rule("ns", "b-fine", "{type: Patch, match: [{select: '$.kind'}],"
                        + " patch: [{op: add, path: /metadata/labels, value: '{a: b}'}]}"))).build();
        Decision d = engine.mutate(AdmissionRequest.create("ns", json(configMap(300))));
        assertThat(d.outcomes().get(0).error(), containsString("renders more than "
                + RenderBudget.MAX_PER_RULE + " characters in this rule"));
        assertThat(d.outcomes().get(0).applied(), empty());
        assertThat(d.patch(), equalTo(json("[{'op':'add','path':'/metadata/labels','value':{'a':'b'}}]")));
    }

    private static final String BIG = "{'kind':'ConfigMap','metadata':{'name':'c'},'data':{'s':'"
            + "x".repeat(900_000) + "'},'spec':{'items':[0,0,0,0,0,0,0,0,0,0]}}";

    /** Rules within their own budget share the request's: the one that passes it fails, the others apply. */
    @Test
    void theRulesOfOneRequestShareItsRenderBudget() {
        var rules = new java.util.ArrayList<io.remold.api.ModRule>();
        for (String name : List.of("a", "b", "c")) {
            rules.add(rule("ns", name, "{type: Patch, match: [{select: '$.kind'}], patch: ["
                    + "{op: add, path: /metadata/annotations/" + name + "1, value: 'x{{ Target.data.s }}'},"
                    + "{op: add, path: /metadata/annotations/" + name + "2, value: 'y{{ Target.data.s }}'}]}"));
        }
        rules.add(rule("ns", "d", "{type: Patch, match: [{select: '$.kind'}],"
                + " patch: [{op: add, path: /metadata/labels, value: '{d: \"{{ Namespace }}\"}'}]}"));
        Decision d = Engine.builder().rules(rules).build().mutate(AdmissionRequest.create("ns", json(BIG)));
        assertThat(d.outcomes().stream().map(o -> o.error() == null).toList(), equalTo(List.of(true, true, false, true)));
        assertThat(d.outcomes().get(2).error(), containsString("renders more than " + RenderBudget.MAX_PER_REQUEST
                + " characters in this admission request"));
        var metadata = d.result().asJsonObject().getJsonObject("metadata");
        assertThat(metadata.getJsonObject("annotations").keySet(), equalTo(java.util.Set.of("a1", "a2", "b1", "b2")));
        assertThat(metadata.getJsonObject("labels"), equalTo(json("{'d':'ns'}")));
    }

    /** A value taken from the object as it is renders nothing new, but each copy counts toward the patch. */
    @Test
    void theRequestsPatchIsBounded() {
        Decision d = Engine.builder().rule(rule("ns", "copies", "{type: Patch, match: [{select: '$.kind'}],"
                        + " patch: [{op: add, select: '$.spec.items[*]', path: '/metadata/annotations/c#0',"
                        + " value: '{{ Target.data.s }}'}]}")).build()
                .mutate(AdmissionRequest.create("ns", json(BIG)));
        assertThat(d.outcomes().getFirst().error(), equalTo("spec.patch[0]: the request's patch would have more than "
                + RequestBudget.MAX_PATCH_CHARS + " characters"));
        assertThat(d.patch(), equalTo(json("[]")));
    }

    /** A Reject rule whose message passes the budget still rejects (fail closed), saying why. */
    @Test
    void aRejectRuleWhoseMessagePassesTheBudgetStillRejects() {
        String message = "{{ Target.data.s | upper | lower | upper }}";
        Decision d = Engine.builder().rule(rule("ns", "loud", "{type: Reject, match: [{select: '$.kind'}],"
                        + " rejectMessage: '" + message + "'}")).build()
                .validate(AdmissionRequest.create("ns", json(BIG)));
        assertThat(d.allowed(), is(false));
        assertThat(d.outcomes().getFirst().error(), containsString("rejectMessage: renders more than "
                + RenderBudget.MAX_PER_RULE + " characters in this rule"));
    }

    /**
     * JSONPath results × their size: a match item compares at most its bound of characters; past it the rule is
     * undecided (a Reject rule rejects), and a criterion-free item compares nothing.
     */
    @Test
    void aMatchItemComparesAtMostTheBoundOfText() {
        String big = "{'kind':'ConfigMap','spec':{'items':["
                + IntStream.range(0, 2000).mapToObj(i -> "'" + "x".repeat(3000) + "'").collect(Collectors.joining(","))
                + "]}}";
        var request = AdmissionRequest.create("ns", json(big));
        Decision d = Engine.builder().rule(rule("ns", "no-y", "{type: Reject, match: [{select: '$.spec.items[*]',"
                + " matchRegex: 'y'}]}")).build().validate(request);
        assertThat(d.rejections().getFirst().message(), containsString("the rule cannot be evaluated: the selected"
                + " values are more than " + CompiledRule.MAX_COMPARED_CHARS + " characters as text"));
        Decision any = Engine.builder().rule(rule("ns", "any", "{type: Reject, match: [{select: '$.spec.items[*]'}]}"))
                .build().validate(request);
        assertThat(any.rejections().getFirst().message(), nullValue());
    }

    /** A stage that sets one value on each of a list's items: each within bounds, their sum is not. */
    private record EveryItem(String value) implements MutationStage {
        @Override
        public RuleFamily family() {
            return new RuleFamily("item setter", "set by", "set-by");
        }

        @Override
        public int ruleCount() {
            return 1;
        }

        @Override
        public jakarta.json.JsonObject mutate(jakarta.json.JsonObject object, StageContext context) {
            var items = Json.PROVIDER.createArrayBuilder();
            object.getJsonObject("spec").getJsonArray("items").forEach(i -> items.add(value));
            context.outcomes().add(new RuleOutcome(family(), "every-item", 0, true, -1, null, jakarta.json.JsonValue.EMPTY_JSON_ARRAY,
                    null));
            return io.remold.json.JsonTree.with(object, "spec", Json.PROVIDER.createObjectBuilder()
                    .add("items", items).build());
        }
    }

    /** The whole patch, stages included, is bounded: past it the request is answered unpatched, saying why. */
    @Test
    void theWholePatchIsBounded() {
        var request = AdmissionRequest.create("ns", json(objectWithItems(1000)));
        Decision fits = Engine.builder().stage(new EveryItem("v".repeat(1000))).build().mutate(request);
        assertThat(fits.patch().isEmpty(), is(false));
        Decision tooLarge = Engine.builder().stage(new EveryItem("v".repeat(10_000))).build().mutate(request);
        assertThat(tooLarge.patch(), equalTo(json("[]")));
        assertThat(tooLarge.outcomes().getLast().rule(), is(Engine.PATCH_OUTCOME));
        assertThat(tooLarge.outcomes().getLast().error(), is("the patch would have more than "
                + RequestBudget.MAX_RESPONSE_PATCH_CHARS + " characters: nothing is patched"));
    }
}

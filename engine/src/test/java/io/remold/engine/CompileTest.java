package io.remold.engine;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.ModRuleSpec;
import io.remold.api.RuleType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static io.remold.engine.Rules.kubemod;
import static io.remold.engine.Rules.rule;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

class CompileTest {

    /** Each spec has exactly one problem: its field, the position inside it, and part of the message. */
    @ParameterizedTest(name = "{1}: {3}")
    @CsvSource(delimiter = '|', textBlock = """
            {type: Reject, match: [{select: '$.kind'}], patch: [{op: remove, path: /a}]} | spec.patch | 0 | a Reject rule cannot have a patch
            {type: Patch, match: [{select: '$.kind'}]}                                    | spec.patch | 0 | a Patch rule needs at least one operation
            {type: Patch, rejectMessage: no, match: [{select: '$.kind'}], patch: [{op: remove, path: /a}]} | spec.rejectMessage | 0 | only Reject rules
            {type: Reject, match: [{select: '$.kind', matchValue: a, matchValues: [b]}]}   | spec.match[0] | 0 | only one of matchValue, matchValues and matchRegex
            {type: Reject, match: [{select: '$.kind', matchValue: a, matchRegex: b}]}      | spec.match[0] | 0 | only one of
            {type: Reject, match: [{select: '$.kind', matchRegex: 'a(b'}]}                 | spec.match[0].matchRegex | 0 | missing closing )
            {type: Reject, targetNamespaceRegex: '[a', match: [{select: '$.kind'}]}         | spec.targetNamespaceRegex | 0 | missing closing ]
            {type: Reject, match: [{select: '$.kind'}, {select: '$.a[?(@.b ==)]'}]}         | spec.match[1].select | -1 |
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: a/b, value: x}]} | spec.patch[0].path | 0 | must start with /
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: /a~2, value: x}]} | spec.patch[0].path | 2 | ~ must be followed by 0 or 1
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: /a/#0, value: x}]} | spec.patch[0].path | 3 | #0 needs a select
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: '/a/[=x]/b', value: x}]} | spec.patch[0].path | 3 | a list step by key is [key=value]
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: '/a/[name]/b', value: x}]} | spec.patch[0].path | 3 | a list step by key is [key=value]
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: '/a~1b/[=x]', value: x}]} | spec.patch[0].path | 6 | a list step by key is [key=value]
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: '/a/[n="x]/b', value: x}]} | spec.patch[0].path | 3 | the key value "x is not a valid JSON string
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: '/a/[n="\\q"]/b', value: x}]} | spec.patch[0].path | 3 | is not a valid JSON string
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: remove, path: /a, value: '{{'}]} | spec.patch[0].value | -1 |
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, select: '$.a[*]', path: '/a/#0/#1', value: x}]} | spec.patch[0].path | 6 | #1 is beyond the 1 wildcard
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, select: ' ', path: /a/#0, value: x}]} | spec.patch[0].path | 3 | #0 needs a select
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, select: '$.a[', path: /a, value: x}]} | spec.patch[0].select | -1 |
            {type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: /a, value: '{{#x}}'}]} | spec.patch[0].value | -1 |
            {type: Reject, rejectMessage: '{{#x}}', match: [{select: '$.kind'}]}            | spec.rejectMessage | -1 |
            """)
    void reportsProblemsWithFieldAndPosition(String spec, String field, int position, String message) {
        RuleCompilation c = Engine.compile(rule("ns", "r", spec));
        assertThat(c.toString(), c.errors().size(), is(1));
        RuleCompilation.Problem p = c.errors().getFirst();
        assertThat(p.field(), equalTo(field));
        if (position >= 0) {
            assertThat(p.position(), is(position));
        }
        if (message != null) {
            assertThat(p.message(), containsString(message));
        }
    }

    @Test
    void reportsEveryProblemOfARule() {
        RuleCompilation c = Engine.compile(rule("ns", "r", "{type: Reject, rejectMessage: ok, match: [{select: '$.a[',"
                + " matchRegex: '('}], patch: [{op: remove, path: x}]}"));
        assertThat(c.errors().stream().map(RuleCompilation.Problem::field).toList(), equalTo(List.of(
                "spec.patch", "spec.match[0].select", "spec.match[0].matchRegex", "spec.patch[0].path")));
    }

    @Test
    void refusesFieldsTheReaderWouldNotProduce() {
        var spec = new ModRuleSpec(RuleType.Reject, List.of(AdmissionOperation.CONNECT), 40000, null, null,
                List.of(), List.of());
        RuleCompilation c = Engine.compile(new ModRule(ModRule.REMOLD_API_VERSION, "ns", "r", spec));
        var fields = c.errors().stream().map(RuleCompilation.Problem::field).toList();
        assertThat(fields, equalTo(List.of("spec.match", "spec.executionTier", "spec.admissionOperations[0]")));
    }

    @Test
    void kubemodTemplatesAreTranslated() {
        assertThat(Engine.compile(kubemod("ns", "r", "{type: Patch, match: [{select: '$.kind'}],"
                + " patch: [{op: add, path: /a, value: '{{ .Target.metadata.name }}'}]}")).errors(), empty());
        RuleCompilation bad = Engine.compile(kubemod("ns", "r", "{type: Reject, match: [{select: '$.kind'}],"
                + " rejectMessage: 'abc {{ .Target.metadata.name '}"));
        assertThat(bad.errors().stream().map(p -> p.field() + "@" + p.position()).toList(),
                equalTo(List.of("spec.rejectMessage@4")));
    }

    /** Validating a rule and building engines with it compile it once, also for an equal copy of the rule. */
    @Test
    void equalRulesShareOneCompilation() throws Exception {
        String spec = "{type: Reject, match: [{select: '$.kind', matchRegex: 'P.d'}]}";
        ModRule first = rule("ns", "r", spec);
        var compiled = new CompiledRules();
        assertThat(compiled.compile(first) == compiled.compile(rule("ns", "r", spec)), is(true));
        assertThat(compiled.compile(first) == compiled.compile(rule("other", "r", spec)), is(false));
        assertThat(CompiledRule.compile(first) == CompiledRule.compile(first), is(false)); // nothing hidden shares
    }

    /** A check keeps its compilation for the engine built next; what the rules in force no longer hold goes. */
    @Test
    void aCheckedRuleIsCompiledOnceForTheEngineAndDroppedWhenNoLongerHeld() throws Exception {
        ModRule rule = rule("ns", "r", "{type: Reject, match: [{select: '$.kind'}]}");
        var compiled = new CompiledRules();
        assertThat(Engine.compile(rule, "remold-system", compiled).ok(), is(true));
        CompiledRule checked = compiled.compile(rule);
        Engine engine = Engine.builder().compiled(compiled).rule(rule).build();
        assertThat(engine.ruleCount(), is(1));
        assertThat(compiled.compile(rule) == checked, is(true));
        compiled.retain(List.of());
        assertThat(compiled.compile(rule) == checked, is(false));
    }

    @Test
    void engineSkipsRulesThatDoNotCompile() {
        Engine engine = Engine.builder()
                .rule(rule("ns", "good", "{type: Reject, match: [{select: '$.kind'}]}"))
                .rule(rule("ns", "bad", "{type: Reject, match: [{select: '$.kind', matchRegex: '('}]}"))
                .build();
        assertThat(engine.ruleCount(), is(1));
        assertThat(engine.problems().getFirst().rule(), equalTo("ns/bad"));
    }
}

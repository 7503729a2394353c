package io.remold.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ModRulesTest {

    private static final String FULL = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: sidecar
              namespace: team-a
              generation: 3
            spec:
              type: Patch
              executionTier: -5
              admissionOperations: [UPDATE, DELETE]
              match:
                - select: $.kind
                  matchValue: Pod
                - select: $.spec.containers[*].image
                  matchFor: All
                  matchValues: [a, 8080]
                  matchRegex: ^nginx
                  negate: true
              patch:
                - op: add
                  select: $.spec.containers[*]
                  path: /spec/containers/#0/x
                  value: 8080
                - op: remove
                  path: /metadata/labels
            ---
            apiVersion: api.kubemod.io/v1beta1
            kind: ModRule
            metadata: {name: r2}
            spec: {type: Reject, rejectMessage: no, match: [{select: '$.kind'}]}
            """;

    @Test
    void readsEveryFieldAndAppliesDefaults() {
        List<ModRule> rules = ModRules.parse(FULL, "rules.yaml");
        assertThat(rules.size(), is(2));
        ModRule first = rules.get(0);
        assertThat(first.id(), is("team-a/sidecar"));
        assertThat(first.generation(), is(3L));
        assertThat(first.isKubeMod(), is(false));
        ModRuleSpec spec = first.spec();
        assertThat(spec.executionTier(), is(-5));
        assertThat(spec.admissionOperations(), contains(AdmissionOperation.UPDATE, AdmissionOperation.DELETE));
        assertThat(spec.match().get(0), equalTo(new MatchItem("$.kind", MatchFor.Any, "Pod", List.of(), null, false)));
        assertThat(spec.match().get(1), equalTo(new MatchItem("$.spec.containers[*].image", MatchFor.All, null,
                List.of("a", "8080"), "^nginx", true)));
        assertThat(spec.patch().get(0), equalTo(new PatchOperation(PatchOp.add, "$.spec.containers[*]",
                "/spec/containers/#0/x", "8080")));
        assertThat(spec.patch().get(1).value(), nullValue());

        ModRule second = rules.get(1);
        assertThat(second.isKubeMod(), is(true));
        assertThat(second.namespace(), nullValue());
        assertThat(second.id(), is("r2"));
        assertThat(second.spec().admissionOperations(), contains(AdmissionOperation.CREATE, AdmissionOperation.UPDATE));
        assertThat(second.spec().executionTier(), is(0));
        assertThat(second.spec().rejectMessage(), is("no"));
    }

    @Test
    void readsReferences() {
        ModRule rule = ModRules.parse("""
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: r, namespace: shop}
                spec:
                  type: Reject
                  match: [{select: $.kind}]
                  references:
                  - {name: settings, apiVersion: v1, kind: ConfigMap, objectName: '{{Target.metadata.name}}',
                     onMissing: fail}
                  - name: peers
                    apiVersion: apps/v1
                    kind: Deployment
                    namespace: other
                    labelSelector:
                      matchLabels: {team: a}
                      matchExpressions: [{key: tier, operator: NotIn, values: [db]}, {key: x, operator: Exists}]
                    onMissing: empty
                """, "r.yaml").getFirst();
        List<Reference> refs = rule.spec().references();
        assertThat(refs.get(0), equalTo(new Reference("settings", "v1", "ConfigMap", "{{Target.metadata.name}}", null,
                null, OnMissing.fail)));
        Reference.Selector selector = refs.get(1).labelSelector();
        assertThat(refs.get(1).namespace(), is("other"));
        assertThat(selector.matches(java.util.Map.of("team", "a", "tier", "web", "x", "")), is(true));
        assertThat(selector.matches(java.util.Map.of("team", "a", "tier", "db", "x", "")), is(false));
        assertThat(selector.matches(java.util.Map.of("team", "a")), is(false));
        var e = assertThrows(ModRuleException.class, () -> ModRules.parse("""
                apiVersion: api.kubemod.io/v1beta1
                kind: ModRule
                metadata: {name: r}
                spec: {type: Reject, match: [{select: $.kind}],
                  references: [{name: s, apiVersion: v1, kind: ConfigMap, objectName: x, onMissing: skip}]}
                """, "k.yaml"));
        assertThat(e.field(), is("spec.references"));
    }

    @Test
    void unpacksLists() {
        String json = """
                {"apiVersion": "v1", "kind": "List", "items": [
                  {"apiVersion": "remold.io/v1beta1", "kind": "ModRule", "metadata": {"name": "a"},
                   "spec": {"type": "Patch", "match": [{"select": "$.kind"}]}}]}
                """;
        assertThat(ModRules.parse(json, "x.json").getFirst().name(), is("a"));
    }

    static Stream<Arguments> brokenSpecs() {
        // tail lines start at line 11 of the text, after the valid first document and "type: Patch".
        return Stream.of(
            Arguments.of("match: [{select: $.a}, {select: $.b, matchFor: Some}]", "spec.match[1].matchFor", 11, 40,
                "expected Any or All, got \"Some\""),
            Arguments.of("match: [{select: $.a}]\n  type: Mutate", "spec.type", 12, 3, "duplicate key"),
            Arguments.of("match: [{select: $.a}]\n  executionTier: x", "spec.executionTier", 12, 3,
                "expected an integer, got \"x\""),
            Arguments.of("match: [{matchValue: x}]", "spec.match[0].select", 11, 11, "required"),
            Arguments.of("match: []", "spec.match", 11, 3, "needs at least one item"),
            Arguments.of("match: [{select: $.a, matchValu: x}]", "spec.match[0].matchValu", 11, 25, "unknown field"),
            Arguments.of("match: [{select: $.a}]\n  executionTier: 40000", "spec.executionTier", 12, 3,
                "expected a value from -32767 to 32766, got 40000"),
            Arguments.of("match: [{select: $.a}]\n  admissionOperations: [CREATE, CONNECT]",
                "spec.admissionOperations[1]", 12, 33, "expected CREATE, UPDATE or DELETE"),
            Arguments.of("match: [{select: $.a}]\n  patch: [{op: move, path: /a}]", "spec.patch[0].op", 12, 12,
                "expected add, replace or remove, got \"move\""),
            Arguments.of("match: [{select: $.a}]\n  patch: [{op: add}]", "spec.patch[0].path", 12, 11, "required"),
            Arguments.of("match: [{select: $.a, negate: 3}]", "spec.match[0].negate", 11, 25,
                "expected true or false, got 3"),
            Arguments.of("match: [{select: $.a}]\n  references: [{name: s, apiVersion: v1, kind: ConfigMap, objectName: x}]",
                "spec.references[0].onMissing", 12, 16, "required"),
            Arguments.of("match: [{select: $.a}]\n  references: [{name: s, apiVersion: v1, kind: ConfigMap,"
                + " onMissing: skip}]", "spec.references[0]", 12, 16, "give exactly one of objectName and labelSelector"),
            Arguments.of("match: [{select: $.a}]\n  references: [{name: s, apiVersion: v1, kind: ConfigMap,"
                + " onMissing: ignore, objectName: x}]", "spec.references[0].onMissing", 12, 59,
                "expected skip, fail or empty, got \"ignore\""),
            Arguments.of("match: [{select: $.a}]\n  references: [{name: s, apiVersion: v1, kind: ConfigMap,"
                + " onMissing: skip, labelSelector: {matchExpressions: [{key: a, operator: In}]}}]",
                "spec.references[0].labelSelector.matchExpressions[0].values", 12, 111,
                "In and NotIn need at least one value"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("brokenSpecs")
    void errorsNameSourceDocumentFieldAndPosition(String specTail, String field, int line, int column,
                                                  String problem) {
        String text = "apiVersion: remold.io/v1beta1\nkind: ModRule\nmetadata: {name: ok}\n"
                + "spec: {type: Patch, match: [{select: $.a}]}\n---\n"
                + "apiVersion: remold.io/v1beta1\nkind: ModRule\nmetadata: {name: broken}\nspec:\n  type: Patch\n  "
                + specTail + "\n";
        var e = assertThrows(ModRuleException.class, () -> ModRules.parse(text, "rules.yaml"));
        assertThat(e.getMessage(), e.source(), is("rules.yaml"));
        assertThat(e.getMessage(), e.document(), is(2));
        assertThat(e.getMessage(), e.field(), is(field));
        assertThat(e.getMessage(), e.problem().startsWith(problem), is(true));
        assertThat(e.getMessage(), e.line(), is(line));
        assertThat(e.getMessage(), e.column(), is(column));
    }

    @Test
    void rejectsForeignApiVersionsAndKinds() {
        var e = assertThrows(ModRuleException.class, () -> ModRules.parse(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "cm.yaml"));
        assertThat(e.getMessage(), is("cm.yaml: document 1 (line 1, column 1): apiVersion: expected remold.io/v1beta1 "
                + "or api.kubemod.io/v1beta1, got \"v1\""));
        e = assertThrows(ModRuleException.class, () -> ModRules.parse(
                "apiVersion: remold.io/v1beta1\nkind: ModRule\nmetadata: {name: x}\nspec: {type: Mutate, match: []}\n",
                "t.yaml"));
        assertThat(e.getMessage(), is("t.yaml: document 1 (line 4, column 8): spec.type: expected Patch or Reject, "
                + "got \"Mutate\""));
        e = assertThrows(ModRuleException.class, () -> ModRules.parse(
                "apiVersion: remold.io/v1beta1\nkind: Pod\nmetadata: {name: x}\n", "p.yaml"));
        assertThat(e.field(), is("kind"));
        e = assertThrows(ModRuleException.class, () -> ModRules.parse(
                "apiVersion: remold.io/v1beta1\nkind: ModRule\nmetadata: {}\nspec: {type: Patch}\n", "p.yaml"));
        assertThat(e.field(), is("metadata.name"));
    }

    @Test
    void reportsYamlSyntaxErrorsWithPosition() {
        var e = assertThrows(ModRuleException.class, () -> ModRules.parse("a: b\n---\nkey: [unclosed\n", "bad.yaml"));
        assertThat(e.getMessage(), e.document(), is(2));
        assertThat(e.line() >= 3, is(true));
        assertThat(e.problem().startsWith("invalid YAML"), is(true));
    }

    @Test
    void fromJsonHasNoPosition() {
        var obj = YamlJson.parse("{apiVersion: remold.io/v1beta1, kind: ModRule, metadata: {name: x, namespace: n},"
                + " spec: {type: Reject, match: [{select: $.a, matchFor: 1}]}}", "x").getFirst().asJsonObject();
        var e = assertThrows(ModRuleException.class, () -> ModRules.fromJson(obj, "n/x"));
        assertThat(e.getMessage(), is("n/x: spec.match[0].matchFor: expected Any or All, got 1"));
    }

    @Test
    void yamlRoundTripKeepsTypes() {
        var value = YamlJson.parse("a: '8080'\nb: 8080\nc: [true, null, 'yes']\nd: 1.5\n", "x").getFirst();
        String yaml = YamlJson.toYaml(value);
        assertThat(YamlJson.parse(yaml, "y").getFirst(), equalTo(value));
    }
}

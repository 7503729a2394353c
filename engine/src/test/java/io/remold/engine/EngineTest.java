package io.remold.engine;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.json.JsonTree;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static io.remold.engine.Rules.kubemod;
import static io.remold.engine.Rules.rule;
import static io.remold.engine.TestJson.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

class EngineTest {
    private static final String POD = """
            {'apiVersion':'v1','kind':'Pod','metadata':{'name':'web','namespace':'ns',
             'labels':{'app':'nginx','tier':'front'}},
             'spec':{'containers':[{'name':'a','image':'nginx:1.14.2','ports':[{'containerPort':80}]},
                                   {'name':'b','image':'redis:7','ports':[{'containerPort':6379}]}]}}""";

    private static Decision mutate(List<ModRule> rules, String namespace, String object) {
        return Engine.builder().rules(rules).build().mutate(AdmissionRequest.create(namespace, json(object)));
    }

    private static boolean matches(String matchItems, String object) {
        Engine engine = Engine.builder().rule(rule("ns", "r", "{type: Reject, match: " + matchItems + "}")).build();
        assertThat(engine.problems(), empty());
        return !engine.validate(AdmissionRequest.create("ns", json(object))).allowed();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            [{select: '$.kind', matchValue: Pod}]                                        | true
            [{select: '$.kind', matchValue: pod}]                                        | false
            [{select: '$.kind', matchValue: Pod, negate: true}]                          | false
            [{select: '$.kind', matchValues: [Service, Pod]}]                            | true
            [{select: '$.kind', matchValues: [Service]}]                                 | false
            [{select: '$.kind'}]                                                         | true
            [{select: '$.nothing'}]                                                      | false
            [{select: '$.nothing', negate: true}]                                        | true
            [{select: '$.spec.containers[*].image', matchRegex: 'nginx'}]                | true
            [{select: '$.spec.containers[*].image', matchRegex: '^inx'}]                 | false
            [{select: '$.spec.containers[*].image', matchRegex: 'nginx', matchFor: All}] | false
            [{select: '$.spec.containers[*].image', matchRegex: ':', matchFor: All}]     | true
            [{select: '$.spec.containers[*].image', matchRegex: 'redis', matchFor: Any}] | true
            [{select: '$.spec.containers[*].ports[*].containerPort', matchValue: '6379'}] | true
            [{select: '$.spec.containers[0].ports[0].containerPort', matchValue: '80'}] | true
            [{select: '$.spec.containers[9].name'}]                                      | false
            [{select: '$.spec.containers[9].name', negate: true}]                        | true
            [{select: '$.metadata.labels[*]', matchValues: [front], matchFor: All}]      | false
            [{select: 'length($.spec.containers) > 1'}]                                  | true
            [{select: 'length($.spec.containers) > 2'}]                                  | false
            [{select: 'length($.spec.containers) > 2', negate: true}]                    | true
            [{select: 'length($.spec.containers)', matchValue: '2'}]                     | true
            [{select: '$.kind == "Pod"'}, {select: '$.metadata.labels.app', matchValue: nginx}] | true
            [{select: '$.kind == "Pod"'}, {select: '$.metadata.labels.app', matchValue: other}] | false
            [{select: '$.spec.containers[?(@.image =~ "redis")].name', matchValue: b}]   | true
            """)
    void matchItemsMustAllHold(String matchItems, boolean expected) {
        assertThat(matches(matchItems, POD), is(expected));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            {op: add, path: /metadata/labels/color, value: blue}            | /metadata/labels/color      | 'blue'
            {op: add, path: /spec/securityContext/runAsUser, value: '1000'} | /spec/securityContext       | {'runAsUser':1000}
            {op: replace, path: /metadata/labels/app, value: apache}        | /metadata/labels/app        | 'apache'
            {op: remove, path: /metadata/labels/tier}                       | /metadata/labels            | {'app':'nginx'}
            {op: remove, path: /metadata/annotations/missing}               | /metadata                   | {'name':'web','namespace':'ns','labels':{'app':'nginx','tier':'front'}}
            {op: add, path: /spec/containers/-1, value: '{name: c}'}        | /spec/containers/2          | {'name':'c'}
            {op: remove, path: /spec/containers/-1}                         | /spec/containers/0/name     | 'a'
            {op: add, select: '$.spec.containers[*].ports[*]', path: '/spec/containers/#0/ports/#1/protocol', value: TCP} | /spec/containers/1/ports/0/protocol | 'TCP'
            {op: replace, select: '$.spec.containers[?(@.image =~ "redis")]', path: '/spec/containers/#0/image', value: 'redis:8'} | /spec/containers/1/image | 'redis:8'
            {op: add, select: '$..ports[?(@.containerPort == 6379)]', path: '/#0/#1/#2/ports/#3/protocol', value: UDP} | /spec/containers/1/ports/0/protocol | 'UDP'
            {op: add, path: '/spec/containers/[name=b]/imagePullPolicy', value: Always} | /spec/containers/1/imagePullPolicy | 'Always'
            {op: add, path: '/spec/containers/[name=proxy]/image', value: envoy}  | /spec/containers/2           | {'name':'proxy','image':'envoy'}
            {op: add, select: '$.spec.containers[*]', path: '/spec/containers/#0/ports/[containerPort=80]/protocol', value: TCP} | /spec/containers/1/ports/1 | {'containerPort':80,'protocol':'TCP'}
            {op: remove, path: '/spec/containers/[name=a]'}                 | /spec/containers/0/name     | 'b'
            {op: remove, path: /spec/containers, value: '{name: a, image: "nginx:1.14.2", ports: [{containerPort: 80}]}'} | /spec/containers/0/name | 'b'
            """)
    void patchOperations(String operation, String pointer, String expected) throws Exception {
        Decision d = mutate(List.of(rule("ns", "r", "{type: Patch, match: [{select: '$.kind', matchValue: Pod}],"
                + " patch: [" + operation + "]}")), "ns", POD);
        assertThat(d.outcomes().toString(), d.outcomes().getFirst().error(), nullValue());
        assertThat(pointed(d.result(), pointer), equalTo(json(expected)));
        assertThat("the patch turns the input into the result",
                apply(json(POD), d.patch()), equalTo(d.result()));
    }

    @Test
    void keyedStepsAndRemoveValuesAreRemoldsOnly() throws Exception {
        String spec = "{type: Patch, match: [{select: '$.kind'}], patch: [{op: remove, path: /metadata/labels/app,"
                + " value: nginx}]}";
        // KubeMod ignores a remove's value: the label goes.
        Decision kubemod = mutate(List.of(Rules.kubemod("ns", "k", spec)), "ns", POD);
        assertThat(pointed(kubemod.result(), "/metadata/labels"), equalTo(json("{'tier':'front'}")));
        // A remold.io remove with a value removes that item from a list, and a label is not a list.
        Decision remold = mutate(List.of(rule("ns", "r", spec)), "ns", POD);
        assertThat(remold.outcomes().getFirst().error(),
                containsString("remove: a value removes items of a list, and /metadata/labels/app is not a list"));
    }

    @Test
    void replaceOfAMissingPathFailsThatRuleOnly() {
        Decision d = mutate(List.of(
                rule("ns", "a-broken", "{type: Patch, match: [{select: '$.kind'}],"
                        + " patch: [{op: add, path: /metadata/labels/x, value: '1'},"
                        + " {op: replace, path: /metadata/annotations/missing, value: x}]}"),
                rule("ns", "b-fine", "{type: Patch, match: [{select: '$.kind'}],"
                        + " patch: [{op: add, path: /metadata/labels/y, value: '2'}]}")), "ns", POD);
        assertThat(d.outcomes(), hasSize(2));
        RuleOutcome broken = d.outcomes().get(0);
        assertThat(broken.rule(), equalTo("ns/a-broken"));
        assertThat(broken.error(), containsString("replace: missing key \"annotations\""));
        assertThat(broken.applied(), empty());
        assertThat(d.outcomes().get(1).error(), nullValue());
        assertThat(d.patch(), equalTo(json("[{'op':'add','path':'/metadata/labels/y','value':2}]")));
    }

    /** Each operation fails at evaluation: the rule reports why and changes nothing; nothing is thrown. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            {op: replace, path: /metadata/annotations/missing, value: x}    | replace: missing key "annotations" at /metadata
            {op: add, path: /metadata/name/x, value: '1'}                   | add: /metadata/name is a string
            {op: add, path: /spec/containers/5, value: '1'}                 | add: index 5 out of range for the list at /spec/containers (size 2)
            {op: replace, path: /spec/containers/-3, value: '1'}            | replace: index -3 out of range
            "{op: add, path: /metadata/labels/x, value: '{{ Target.metadata.labels.tier | b64dec }}'}" | not base64
            {op: add, select: '$.spec.containers[?(@.image =~ "nginx:1")]', path: '/spec/containers/#0/x#1', value: '1'} | placeholder the select does not capture
            """)
    void failingOperationsFailTheirRuleOnly(String operation, String error) {
        JsonValue pod = json(POD);
        Decision d = Engine.builder().rule(rule("ns", "r", "{type: Patch, match: [{select: '$.kind'}], patch: ["
                + operation + "]}")).build().mutate(AdmissionRequest.create("ns", pod));
        assertThat(d.outcomes(), hasSize(1));
        assertThat(d.outcomes().getFirst().error(), containsString(error));
        assertThat(d.outcomes().getFirst().applied(), empty());
        assertThat(d.patch(), empty());
        assertThat(d.result(), equalTo(pod));
    }

    @Test
    void theObjectsOwnSyntheticRefsAreKept() {
        ModRule r = rule("ns", "r", "{type: Patch, match: [{select: '$.syntheticRefs.node.metadata.name'}],"
                + " patch: [{op: add, path: /metadata/labels/node, value: '{{ Target.syntheticRefs.node.metadata.name }}'}]}");
        var request = new AdmissionRequest(AdmissionOperation.CREATE, "ns",
                json("{'kind':'Pod','metadata':{'labels':{}},'syntheticRefs':{'own':1}}"), null, null,
                json("{'metadata':{'name':'node-1'}}"), false);
        Decision d = Engine.builder().rule(r).build().mutate(request);
        assertThat(d.result(), equalTo(json("{'kind':'Pod','metadata':{'labels':{'node':'node-1'}},'syntheticRefs':{'own':1}}")));
        assertThat(d.patch(), equalTo(json("[{'op':'add','path':'/metadata/labels/node','value':'node-1'}]")));
    }

    @Test
    void deletionsAreNeverPatched() {
        Engine engine = Engine.builder().rule(rule("ns", "r", "{type: Patch, admissionOperations: [DELETE],"
                + " match: [{select: '$.kind'}], patch: [{op: add, path: /x, value: '1'}]}")).build();
        JsonValue pod = json(POD);
        Decision d = engine.mutate(new AdmissionRequest(AdmissionOperation.DELETE, "ns", null, pod, null, null, false));
        assertThat(d.patch(), empty());
        assertThat(d.result(), equalTo(pod));
    }

    @Test
    void unreadableLastAppliedConfigurationIsLeftAlone() {
        JsonValue object = json("{'kind':'Pod','metadata':{'annotations':{'" + Engine.LAST_APPLIED + "':'{not json'}}}");
        Decision d = mutate(List.of(rule("ns", "r", "{type: Patch, match: [{select: '$.kind'}],"
                + " patch: [{op: add, path: /metadata/labels, value: '{a: b}'}]}")), "ns", JsonTree.goText(object));
        assertThat(d.patch(), equalTo(json("[{'op':'add','path':'/metadata/labels','value':{'a':'b'}}]")));
    }

    @Test
    void higherTiersSeeTheOutputOfLowerTiers() throws Exception {
        Decision d = mutate(List.of(
                rule("ns", "second", "{type: Patch, executionTier: 5, match: [{select: '$.metadata.labels.stage',"
                        + " matchValue: one}], patch: [{op: add, path: /metadata/labels/stage, value: two}]}"),
                rule("ns", "first", "{type: Patch, executionTier: -3, match: [{select: '$.kind', matchValue: Pod}],"
                        + " patch: [{op: add, path: /metadata/labels/stage, value: one}]}"),
                rule("ns", "same-tier", "{type: Patch, executionTier: -3, match: [{select: '$.metadata.labels.stage'}],"
                        + " patch: [{op: add, path: /metadata/labels/never, value: x}]}")), "ns", POD);
        assertThat(pointed(d.result(), "/metadata/labels/stage"), equalTo(json("'two'")));
        assertThat(pointed(d.result(), "/metadata/labels/never"), nullValue());
        assertThat(d.outcomes().stream().map(RuleOutcome::rule).toList(), contains("ns/first", "ns/second"));
    }

    @Test
    void rulesOfOneTierRunInNamespaceThenNameOrder() {
        var rules = new ArrayList<ModRule>();
        for (String id : List.of("remold-system/b", "ns/b", "remold-system/a", "ns/a")) {
            String[] parts = id.split("/");
            rules.add(rule(parts[0], parts[1], "{type: Patch, targetNamespaceRegex: '.*', match: [{select: '$.kind'}],"
                    + " patch: [{op: add, path: '/metadata/labels/" + parts[1] + "', value: '" + id + "'}]}"));
        }
        Decision d = mutate(rules, "ns", POD);
        assertThat(d.outcomes().stream().map(RuleOutcome::rule).toList(),
                contains("ns/a", "ns/b", "remold-system/a", "remold-system/b"));
    }

    /** Which rules apply to an object in a namespace ("" = cluster-scoped). */
    @ParameterizedTest(name = "rule in {0} (target {1}) on object in ''{2}'' -> {3}")
    @CsvSource(delimiter = '|', textBlock = """
            ns             |        | ns     | true
            ns             |        | other  | false
            ns             |        | ''     | false
            remold-system  |        | ''     | true
            remold-system  |        | ns     | false
            remold-system  | '.*'   | ns     | true
            remold-system  | '^n'   | ns     | true
            remold-system  | '^o'   | ns     | false
            remold-system  | 'prod' | a-prod-b | true
            kubemod-system | '.*'   | ns     | false
            """)
    void namespaceScoping(String ruleNamespace, String targetRegex, String objectNamespace, boolean applies) {
        ModRule r = rule(ruleNamespace, "r", "{type: Reject, " + (targetRegex == null ? ""
                : "targetNamespaceRegex: '" + targetRegex + "', ") + "match: [{select: '$.kind'}]}");
        Engine engine = Engine.builder().rule(r).build();
        assertThat(engine.validate(AdmissionRequest.create(objectNamespace, json(POD))).allowed(), is(!applies));
    }

    @Test
    void kubemodRulesAreClusterWideFromTheKubemodSystemNamespaceWhenOneIsSet() {
        ModRule r = kubemod("kubemod-system", "r", "{type: Reject, targetNamespaceRegex: '.*',"
                + " match: [{select: '$.kind'}]}");
        Engine engine = Engine.builder().kubemodSystemNamespace("kubemod-system").rule(r).build();
        assertThat(engine.validate(AdmissionRequest.create("ns", json(POD))).allowed(), is(false));
    }

    /** F13: without KubeMod compatibility, whoever creates a namespace called kubemod-system gets no cluster rule. */
    @Test
    void kubemodRulesInKubemodSystemAreNamespacedByDefault() {
        ModRule r = kubemod("kubemod-system", "r", "{type: Patch, targetNamespaceRegex: '.*',"
                + " match: [{select: '$.kind', matchValue: Pod}],"
                + " patch: [{op: add, path: /spec/containers/1, value: '{name: sidecar, image: miner}'}]}");
        Engine engine = Engine.builder().rule(r).build();
        assertThat(engine.mutate(AdmissionRequest.create("team-b", json(POD))).patch(), equalTo(JsonValue.EMPTY_JSON_ARRAY));
        assertThat(engine.validate(AdmissionRequest.create("team-b", json(POD))).outcomes(), empty());
        assertThat(engine.mutate(AdmissionRequest.create("kubemod-system", json(POD))).patch().isEmpty(), is(false));
    }

    @Test
    void syntheticRefsAreVisibleButNeverInTheResult() {
        ModRule r = rule("ns", "flavor", """
                {type: Patch, match: [{select: '$.syntheticRefs.namespace.metadata.labels.color', matchValue: blue}],
                 patch: [{op: add, path: /metadata/labels/flavor,
                          value: '{{ Target.syntheticRefs.namespace.metadata.labels.flavor }}'}]}""");
        var request = new AdmissionRequest(AdmissionOperation.CREATE, "ns", json(POD), null,
                json("{'metadata':{'name':'ns','labels':{'color':'blue','flavor':'mint'}}}"),
                json("{'metadata':{'name':'node-1'}}"), false);
        Decision d = Engine.builder().rule(r).build().mutate(request);
        assertThat(d.patch(), equalTo(json("[{'op':'add','path':'/metadata/labels/flavor','value':'mint'}]")));
        assertThat(d.result().asJsonObject().containsKey("syntheticRefs"), is(false));
    }

    /**
     * S6: an object's own top-level syntheticRefs (a custom resource may keep unknown fields) is never what rules
     * read, with or without references of the server's; the result keeps it as it was.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anObjectsOwnSyntheticRefsAreNotRead(boolean serverHasRefs) {
        ModRule r = rule(null, "trusted", """
                {type: Patch, match: [{select: '$.syntheticRefs.namespace.metadata.labels.trusted', matchValue: 'yes'}],
                 patch: [{op: add, path: /metadata/labels/trusted, value: 'yes'}]}""");
        String forged = "{'kind':'Widget','metadata':{'name':'w'},"
                + "'syntheticRefs':{'namespace':{'metadata':{'labels':{'trusted':'yes'}}}}}";
        var request = new AdmissionRequest(AdmissionOperation.CREATE, "ns", json(forged), null,
                serverHasRefs ? json("{'metadata':{'name':'ns','labels':{'trusted':'no'}}}") : null, null, false);
        Decision d = Engine.builder().rule(r).build().mutate(request);
        assertThat(d.patch(), equalTo(JsonValue.EMPTY_JSON_ARRAY));
        assertThat(d.result(), equalTo(json(forged)));
    }

    /** A Pod named web with {@code labels}, applied by kubectl as {@code applied}; labelled blue by a rule. */
    private static Decision labelledBlue(String labels, String applied) {
        String object = JsonTree.goText(Json.PROVIDER.createObjectBuilder(json(applied).asJsonObject())
                .add("metadata", Json.PROVIDER.createObjectBuilder(json("{'name':'web','labels':" + labels + "}")
                        .asJsonObject()).add("annotations", Json.PROVIDER.createObjectBuilder()
                        .add(Engine.LAST_APPLIED, applied))).build());
        return mutate(List.of(rule("ns", "r", "{type: Patch, match: [{select: '$.kind'}],"
                + " patch: [{op: add, path: /metadata/labels/color, value: blue}]}")), "ns", object);
    }

    @Test
    void lastAppliedConfigurationIsPatchedToo() {
        Decision d = labelledBlue("{'app':'x'}",
                "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\",\"labels\":{\"app\":\"x\"}}}");
        String annotation = d.result().asJsonObject().getJsonObject("metadata").getJsonObject("annotations")
                .getString(Engine.LAST_APPLIED);
        assertThat(json(annotation), equalTo(json("{'kind':'Pod','metadata':{'name':'web','labels':{'app':'x','color':'blue'}}}")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a parent made implicitly   | {'metadata':{}}                      | [{'op':'add','path':'/metadata/labels/team','value':'blue'}]  | [{'op':'add','path':'/metadata/labels','value':{'team':'blue'}}]
            what is there already      | {'metadata':{'labels':{'team':'blue'}}} | [{'op':'add','path':'/metadata/labels/team','value':'blue'}]  | []
            a replace                  | {'spec':{'replicas':1}}              | [{'op':'replace','path':'/spec/replicas','value':3}]          | [{'op':'replace','path':'/spec/replicas','value':3}]
            not applicable to before   | {'spec':{'replicas':1}}              | [{'op':'add','path':'/spec/replicas/x','value':2}]            | [{'op':'add','path':'/spec/replicas/x','value':2}]
            """)
    void anOutcomesEffectIsTheStrictPatchOfWhatItsOperationsChange(String name, String before, String applied,
                                                                  String effect) {
        assertThat(Engine.effect(json(before), json(applied).asJsonArray()), equalTo(json(effect)));
    }

    @Test
    void aPatchThatLeavesTheLastAppliedConfigurationAsItWasDoesNotRewriteIt() {
        // kubectl writes the annotation with a final newline; re-serializing it would be a change of the object.
        Decision d = labelledBlue("{'color':'blue'}",
                "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\",\"labels\":{\"color\":\"blue\"}}}\n");
        assertThat(d.patch(), equalTo(JsonValue.EMPTY_JSON_ARRAY));
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource(delimiter = '|', textBlock = """
            [CREATE]         | CREATE | true
            [CREATE]         | UPDATE | false
            [DELETE]         | DELETE | true
            [DELETE]         | CREATE | false
            [UPDATE, DELETE] | UPDATE | true
            """)
    void admissionOperationsFilter(String operations, AdmissionOperation operation, boolean rejected) {
        Engine engine = Engine.builder().rule(rule("ns", "r", "{type: Reject, admissionOperations: " + operations
                + ", match: [{select: '$.metadata.name', matchValue: old}]}")).build();
        var request = new AdmissionRequest(operation, "ns", operation == AdmissionOperation.DELETE ? null
                : json("{'metadata':{'name':'old'}}"), json("{'metadata':{'name':'old'}}"), null, null, false);
        assertThat(engine.validate(request).allowed(), is(!rejected));
    }

    @Test
    void rejectionsNameTheRuleAndRenderTheMessage() {
        Engine engine = Engine.builder().rule(rule("ns", "no-latest", "{type: Reject,"
                + " rejectMessage: 'image of {{ Target.metadata.name }} is not allowed',"
                + " match: [{select: '$.kind', matchValue: Pod}]}")).build();
        Decision d = engine.validate(AdmissionRequest.create("ns", json(POD)));
        assertThat(d.rejections(), contains(new Rejection("ns", "no-latest", "image of web is not allowed")));
        assertThat(d.rejectionMessage(), equalTo(
                "operation rejected by the following ModRule(s): ns/no-latest: \"image of web is not allowed\""));
    }

    @Test
    void aRejectMessageThatFailsStillRejectsAndReportsWhy() {
        Engine engine = Engine.builder().rule(rule("ns", "r", "{type: Reject,"
                + " rejectMessage: '{{ Target.metadata.labels.tier | b64dec }}', match: [{select: '$.kind'}]}")).build();
        Decision d = engine.validate(AdmissionRequest.create("ns", json(POD)));
        assertThat(d.rejections(), contains(new Rejection("ns", "r", null)));
        assertThat(d.outcomes().getFirst().error(), containsString("rejectMessage: "));
    }

    @Test
    void explainGivesTheFailedMatchItem() {
        Engine engine = Engine.builder().rule(rule("ns", "r", "{type: Reject, match: [{select: '$.kind'},"
                + " {select: '$.metadata.labels.app', matchValue: apache}]}")).build();
        var request = new AdmissionRequest(AdmissionOperation.CREATE, "ns", json(POD), null, null, null, true);
        RuleOutcome outcome = engine.validate(request).outcomes().getFirst();
        assertThat(outcome.matched(), is(false));
        assertThat(outcome.failedMatchItem(), is(1));
        assertThat(outcome.reason(), containsString("\"nginx\""));
    }

    @Test
    void nothingMatchingLeavesTheObjectAlone() {
        JsonValue pod = json(POD);
        Decision d = Engine.builder().rule(rule("ns", "r", "{type: Patch, match: [{select: '$.kind', matchValue: Svc}],"
                + " patch: [{op: add, path: /x, value: '1'}]}")).build().mutate(AdmissionRequest.create("ns", pod));
        assertThat(d.result() == pod, is(true));
        assertThat(d.patch(), empty());
        assertThat(d.outcomes(), empty());
    }

    @Test
    void hugeNumbersNeverEscape() {
        Decision d = mutate(List.of(rule("ns", "r", "{type: Patch, match: [{select: '$.kind'}],"
                + " patch: [{op: add, path: /metadata/labels/n, value: '1e99999999999'}]}")), "ns", POD);
        assertThat(d.outcomes(), hasSize(1));
    }

    private static JsonValue pointed(JsonValue document, String pointer) throws Exception {
        JsonValue v = document;
        for (String token : JsonPatcher.tokens(pointer)) {
            if (v instanceof jakarta.json.JsonObject o) {
                v = o.get(token);
            } else if (v instanceof jakarta.json.JsonArray a) {
                int i = Integer.parseInt(token);
                v = i < a.size() ? a.get(i) : null;
            } else {
                return null;
            }
            if (v == null) {
                return null;
            }
        }
        return v;
    }

    private static JsonValue apply(JsonValue document, jakarta.json.JsonArray patch) throws Exception {
        var ops = new ArrayList<JsonPatcher.Operation>();
        for (JsonValue op : patch) {
            var o = op.asJsonObject();
            ops.add(new JsonPatcher.Operation(io.remold.api.PatchOp.valueOf(o.getString("op")), o.getString("path"),
                    o.get("value")));
        }
        return JsonPatcher.apply(document, ops);
    }
}

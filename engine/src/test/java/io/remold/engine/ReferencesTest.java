package io.remold.engine;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.remold.engine.TestJson.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

/** spec.references: look-ups through the resolver, where they look, onMissing, and what the rule sees. */
class ReferencesTest {
    private static final String DEPLOYMENT = """
            {'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'web','namespace':'shop',
             'labels':{'team':'blue'}},
             'spec':{'template':{'spec':{'containers':[{'name':'a','image':'docker.io/nginx:1'},
                                                        {'name':'b','image':'evil.example/miner:1'}]}}}}""";

    /** Objects by "apiVersion kind namespace/name", and the queries asked. */
    private static final class FakeResolver implements ReferenceResolver {
        final Map<String, JsonValue> objects;
        final List<ReferenceQuery> asked = new ArrayList<>();

        FakeResolver(Map<String, JsonValue> objects) {
            this.objects = objects;
        }

        @Override
        public synchronized Resolution resolve(ReferenceQuery q) {
            asked.add(q);
            if (q.kind().equals("Secret")) {
                throw new ReferenceException("Secrets may not be referenced");
            }
            if (q.name() != null) {
                return new Resolution(objects.get(q.apiVersion() + " " + q.kind() + " " + q.namespace() + "/" + q.name()),
                        "fake");
            }
            var selected = Json.PROVIDER.createArrayBuilder();
            objects.forEach((key, value) -> {
                JsonObject metadata = value.asJsonObject().getJsonObject("metadata");
                var labels = new java.util.HashMap<String, String>();
                if (metadata.get("labels") instanceof JsonObject l) {
                    l.forEach((k, v) -> labels.put(k, ((jakarta.json.JsonString) v).getString()));
                }
                if (key.startsWith(q.apiVersion() + " " + q.kind() + " " + q.namespace() + "/")
                        && q.selector().matches(labels)) {
                    selected.add(value);
                }
            });
            return new Resolution(selected.build(), "fake");
        }
    }

    private static JsonValue configMap(String namespace, String name, String data) {
        return json("{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'" + name + "','namespace':'" + namespace
                + "','labels':{'team':'blue'}},'data':" + data + "}");
    }

    private static final FakeResolver CLUSTER = new FakeResolver(Map.of(
            "v1 ConfigMap shop/registries", configMap("shop", "registries", "{'allowed':'docker[.]io|ghcr[.]io'}"),
            "v1 ConfigMap shop/blue-settings", configMap("shop", "blue-settings", "{'tier':'gold'}"),
            "v1 ConfigMap other/blue-settings", configMap("other", "blue-settings", "{'tier':'stolen'}"),
            "v1 ConfigMap remold-system/defaults", configMap("remold-system", "defaults", "{'tier':'bronze'}")));

    /** A rule with a block-style spec. */
    private static ModRule rule(String namespace, String name, String spec) {
        return io.remold.api.ModRules.parse("apiVersion: remold.io/v1beta1\nkind: ModRule\nmetadata: {name: " + name
                + ", namespace: " + namespace + "}\nspec:\n" + spec.indent(2), name).getFirst();
    }

    private static Engine engine(ReferenceResolver resolver, ModRule... rules) {
        Engine engine = Engine.builder().references(resolver).rules(List.of(rules)).build();
        assertThat(engine.problems().toString(), engine.problems(), empty());
        return engine;
    }

    private static AdmissionRequest request(String namespace, String object) {
        return new AdmissionRequest(AdmissionOperation.CREATE, namespace, json(object), null, null, null, true);
    }

    private static final String ALLOW_LIST = """
            type: Reject
            rejectMessage: 'image {{ Target.spec.template.spec.containers[0].image }} is not from {{ References.registries.data.allowed }}'
            references:
            - {name: registries, apiVersion: v1, kind: ConfigMap, objectName: registries, onMissing: fail}
            match:
            - {select: '$.kind', matchValue: Deployment}
            - select: '$.spec.template.spec.containers[? @.image !~ ("^(" + $.syntheticRefs.registries.data.allowed + ")/")]'
            """;

    @Test
    void rejectRuleComparesWithAReferencedObject() {
        Decision decision = engine(CLUSTER, rule("shop", "registries", ALLOW_LIST)).validate(request("shop", DEPLOYMENT));
        assertThat(decision.rejectionMessage(), containsString("is not from docker[.]io|ghcr[.]io"));
        assertThat(decision.outcomes().getFirst().references(),
                contains("registries: v1 ConfigMap shop/registries: found (fake)"));
        String allowed = DEPLOYMENT.replace("evil.example/miner", "ghcr.io/team/app");
        assertThat(engine(CLUSTER, rule("shop", "registries", ALLOW_LIST)).validate(request("shop", allowed))
                .allowed(), is(true));
    }

    @Test
    void aReferenceIsLookedUpOnlyForObjectsTheRuleConcerns() {
        var resolver = new FakeResolver(CLUSTER.objects);
        engine(resolver, rule("shop", "registries", ALLOW_LIST))
                .validate(request("shop", "{'apiVersion':'v1','kind':'Service','metadata':{'name':'s'}}"));
        assertThat(resolver.asked, empty());
    }

    @Test
    void patchValuesSeeReferencesByNameTemplatedFromTheObject() {
        ModRule rule = rule("shop", "tier", """
                type: Patch
                references:
                - {name: settings, apiVersion: v1, kind: ConfigMap, objectName: '{{ Target.metadata.labels.team }}-settings',
                   onMissing: skip}
                match: [{select: '$.kind', matchValue: Deployment}]
                patch:
                - {op: add, path: /metadata/labels/tier, value: '{{ References.settings.data.tier }}'}
                """);
        Decision decision = engine(CLUSTER, rule).mutate(request("shop", DEPLOYMENT));
        assertThat(decision.patch().toString(), is("[{\"op\":\"add\",\"path\":\"/metadata/labels/tier\",\"value\":\"gold\"}]"));
        assertThat(((JsonObject) decision.result()).containsKey("syntheticRefs"), is(false));
    }

    @Test
    void aNamespacedRuleReadsOnlyItsOwnNamespace() {
        // The object is in "other", the rule (a folder rule would apply anywhere) sits in shop: it reads shop.
        var resolver = new FakeResolver(CLUSTER.objects);
        ModRule rule = rule("shop", "tier", """
                type: Patch
                references:
                - {name: settings, apiVersion: v1, kind: ConfigMap, objectName: blue-settings, onMissing: skip}
                match: [{select: '$.kind', matchValue: Deployment}]
                patch: [{op: add, path: /metadata/labels/tier, value: '{{ References.settings.data.tier }}'}]
                """);
        engine(resolver, rule).mutate(request("shop", DEPLOYMENT));
        assertThat(resolver.asked.getFirst().namespace(), is("shop"));
        assertThat(resolver.asked.getFirst().clusterWide(), is(false));

        ModRule elsewhere = rule("shop", "steal", """
                type: Patch
                references:
                - {name: settings, apiVersion: v1, kind: ConfigMap, objectName: blue-settings, namespace: other,
                   onMissing: skip}
                match: [{select: '$.kind', matchValue: Deployment}]
                patch: [{op: add, path: /metadata/labels/tier, value: '{{ References.settings.data.tier }}'}]
                """);
        Engine refused = Engine.builder().references(resolver).rule(elsewhere).build();
        assertThat(refused.ruleCount(), is(0));
        assertThat(refused.problems().getFirst().errors().getFirst().field(), is("spec.references[0].namespace"));
        assertThat(Engine.compile(elsewhere, "remold-system").ok(), is(false));
        assertThat(Engine.compile(new ModRule(elsewhere.apiVersion(), "remold-system", elsewhere.name(), elsewhere.spec()), "remold-system").ok(), is(true));
    }

    @Test
    void systemRulesMayChooseTheNamespace() {
        ModRule rule = rule("remold-system", "tier", """
                type: Patch
                targetNamespaceRegex: '.*'
                references:
                - {name: settings, apiVersion: v1, kind: ConfigMap, objectName: blue-settings, namespace: '{{ Namespace }}',
                   onMissing: skip}
                - {name: defaults, apiVersion: v1, kind: ConfigMap, objectName: defaults, onMissing: fail}
                match: [{select: '$.kind', matchValue: Deployment}]
                patch: [{op: add, path: /metadata/labels/tier, value: '{{ References.settings.data.tier }}-{{ References.defaults.data.tier }}'}]
                """);
        Decision decision = engine(CLUSTER, rule).mutate(request("other", DEPLOYMENT.replace("'shop'", "'other'")));
        assertThat(decision.patch().toString(), containsString("stolen-bronze"));
    }

    /**
     * S3: a namespace template that renders empty (a label the object lacks) is missing, and no look-up is made:
     * the object's author never widens a cluster rule's read to every namespace.
     */
    @Test
    void aNamespaceThatRendersEmptyIsMissing() {
        ModRule rule = rule("remold-system", "tier", """
                type: Patch
                targetNamespaceRegex: '.*'
                references:
                - {name: teams, apiVersion: v1, kind: ConfigMap, labelSelector: {matchLabels: {team: blue}},
                   namespace: '{{ Target.metadata.labels.home }}', onMissing: fail}
                match: [{select: '$.kind', matchValue: Deployment}]
                patch: [{op: add, path: /metadata/labels/tier, value: x}]
                """);
        var resolver = new FakeResolver(CLUSTER.objects);
        Decision decision = engine(resolver, rule).mutate(request("shop", DEPLOYMENT));
        assertThat(decision.outcomes().getFirst().error(), is("reference teams: namespace renders empty"));
        assertThat(resolver.asked, empty());
    }

    @Test
    void onMissingSkipFailEmpty() {
        String spec = """
                type: Patch
                references:
                - {name: settings, apiVersion: v1, kind: ConfigMap, objectName: nothing-here, onMissing: %s}
                match: [{select: '$.kind', matchValue: Deployment}]
                patch: [{op: add, path: /metadata/labels/tier, value: '{{ References.settings.data.tier | default "none" }}'}]
                """;
        Decision skipped = engine(CLUSTER, rule("shop", "r", spec.formatted("skip"))).mutate(request("shop", DEPLOYMENT));
        assertThat(skipped.patch(), empty());
        assertThat(skipped.outcomes().getFirst().reason(),
                is("reference settings: v1 ConfigMap shop/nothing-here not found (fake) (onMissing: skip)"));

        Decision failed = engine(CLUSTER, rule("shop", "r", spec.formatted("fail"))).mutate(request("shop", DEPLOYMENT));
        assertThat(failed.patch(), empty());
        assertThat(failed.outcomes().getFirst().error(), is("reference settings: v1 ConfigMap shop/nothing-here not found (fake)"));

        Decision empty = engine(CLUSTER, rule("shop", "r", spec.formatted("empty"))).mutate(request("shop", DEPLOYMENT));
        assertThat(empty.patch().toString(), containsString("\"value\":\"none\""));
    }

    @Test
    void aMissingReferenceWithOnMissingFailRejects() {
        String spec = ALLOW_LIST.replace("objectName: registries", "objectName: gone");
        Decision decision = engine(CLUSTER, rule("shop", "r", spec)).validate(request("shop", DEPLOYMENT));
        assertThat(decision.allowed(), is(false));
        assertThat(decision.rejections().getFirst().message(), containsString("v1 ConfigMap shop/gone not found"));
    }

    @Test
    void aRefusedReferenceFailsTheRule() {
        Decision decision = engine(CLUSTER, rule("shop", "r", """
                type: Patch
                references: [{name: s, apiVersion: v1, kind: Secret, objectName: x, onMissing: empty}]
                match: [{select: '$.kind', matchValue: Deployment}]
                patch: [{op: add, path: /metadata/labels/x, value: y}]
                """)).mutate(request("shop", DEPLOYMENT));
        assertThat(decision.outcomes().getFirst().error(), containsString("Secrets may not be referenced"));
    }

    @Test
    void selectorReferencesAreLists() {
        ModRule rule = rule("shop", "count", """
                type: Patch
                references:
                - {name: blue, apiVersion: v1, kind: ConfigMap, labelSelector: {matchLabels: {team: blue}}, onMissing: empty}
                match:
                - {select: '$.kind', matchValue: Deployment}
                - {select: 'length($.syntheticRefs.blue) == 2'}
                patch: [{op: add, path: /metadata/annotations/configs, value: '{{ References.blue }}'}]
                """);
        Decision decision = engine(CLUSTER, rule).mutate(request("shop", DEPLOYMENT));
        JsonArray configs = ((JsonObject) decision.result()).getJsonObject("metadata").getJsonObject("annotations")
                .getJsonArray("configs");
        assertThat(configs.size(), is(2));
        Decision none = engine(CLUSTER, rule).mutate(request("empty", DEPLOYMENT.replace("'shop'", "'empty'")));
        assertThat(none.patch(), empty());
    }

    @Test
    void compileChecksNamesAndTemplates() {
        RuleCompilation compilation = Engine.compile(rule("shop", "bad", """
                type: Patch
                references:
                - {name: node, apiVersion: v1, kind: ConfigMap, objectName: a, onMissing: skip}
                - {name: '9x', apiVersion: v1, kind: ConfigMap, objectName: a, onMissing: skip}
                - {name: ok, apiVersion: v1, kind: ConfigMap, objectName: '{{ Target.metadata.name', onMissing: skip}
                - {name: ok, apiVersion: v1, kind: ConfigMap, objectName: a, onMissing: skip}
                match: [{select: '$.kind'}]
                patch: [{op: add, path: /a, value: b}]
                """));
        assertThat(compilation.errors().stream().map(RuleCompilation.Problem::field).toList(),
                contains("spec.references[0].name", "spec.references[1].name", "spec.references[2].objectName",
                        "spec.references[3].name"));
    }

    @Test
    void matchItemsOnReferencesAreNotIndexed() {
        ModRule rule = rule("shop", "gold", """
                type: Reject
                references: [{name: settings, apiVersion: v1, kind: ConfigMap, objectName: blue-settings, onMissing: skip}]
                match: [{select: '$.syntheticRefs.settings.data.tier', matchValue: gold}]
                """);
        assertThat(engine(CLUSTER, rule).validate(request("shop", DEPLOYMENT)).allowed(), is(false));
        assertThat(engine(ReferenceResolver.NONE, rule).validate(request("shop", DEPLOYMENT)).allowed(), is(true));
        assertThat(CompiledRule.mayReadReferences("$.kind"), is(false));
        assertThat(CompiledRule.mayReadReferences("$.*.x"), is(true));
        assertThat(CompiledRule.mayReadReferences("$['syntheticRefs']"), is(true));
        assertThat(CompiledRule.mayReadReferences("$..image"), is(true));
        assertThat(CompiledRule.mayReadReferences("$ .\u000B* .x"), is(true));
        assertThat(CompiledRule.mayReadReferences("$\t[0]"), is(true));
        assertThat(engine(CLUSTER, rule).validate(request("shop", DEPLOYMENT)).outcomes().getFirst().references(),
                hasItem("settings: v1 ConfigMap shop/blue-settings: found (fake)"));
    }
}

package io.remold.gatekeeper;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRules;
import io.remold.api.YamlJson;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.RuleFamily;
import io.remold.engine.RuleOutcome;
import io.remold.gatekeeper.mutators.Mutator;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.sameInstance;

/** The module's entry point as the engine uses it: a stage after the ModRules, one patch, outcomes per mutator. */
class GatekeeperTest {
    private static final String POD = """
            apiVersion: v1
            kind: Pod
            metadata: {name: web, namespace: shop}
            spec:
              containers:
                - {name: app, image: nginx:1.27}
            """;
    private static final String ASSIGN_PULL_POLICY = """
            apiVersion: mutations.gatekeeper.sh/v1
            kind: Assign
            metadata: {name: always-pull}
            spec:
              applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
              location: "spec.containers[name: *].imagePullPolicy"
              parameters: {assign: {value: Always}}
            """;
    private static final String OWNER_LABEL = """
            apiVersion: mutations.gatekeeper.sh/v1beta1
            kind: AssignMetadata
            metadata: {name: owner}
            spec:
              match: {namespaceSelector: {matchLabels: {team: shop}}}
              location: metadata.labels.owner
              parameters: {assign: {value: shop-team}}
            """;

    private static JsonObject yaml(String text) {
        return (JsonObject) YamlJson.parse(text, "test").getFirst();
    }

    private static Mutator mutator(String manifest) {
        return Gatekeeper.parse(yaml(manifest));
    }

    private static Decision mutate(Engine engine, JsonObject namespace) {
        return engine.mutate(new AdmissionRequest(AdmissionOperation.CREATE, "shop", yaml(POD), null, namespace,
                null, false));
    }

    @Test
    void mutatorsRunAfterModRulesAndEachOutcomeCarriesItsOwnOperations() {
        var modRule = ModRules.parse("""
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: pull-if-not-present, namespace: shop}
                spec:
                  type: Patch
                  match: [{select: '$.kind', matchValue: Pod}]
                  patch:
                    - {op: add, path: /spec/containers/0/imagePullPolicy, value: IfNotPresent}
                """, "test");
        Engine engine = Engine.builder().rules(modRule)
                .stage(Gatekeeper.stage(List.of(mutator(OWNER_LABEL), mutator(ASSIGN_PULL_POLICY)))).build();
        JsonObject namespace = yaml("{apiVersion: v1, kind: Namespace, metadata: {name: shop, labels: {team: shop}}}");

        Decision decision = mutate(engine, namespace);

        JsonObject result = (JsonObject) decision.result();
        assertThat(result.getJsonObject("spec").getJsonArray("containers").getJsonObject(0)
                .getString("imagePullPolicy"), is("Always"));
        assertThat(result.getJsonObject("metadata").getJsonObject("labels").getString("owner"), is("shop-team"));
        assertThat(decision.outcomes().stream().map(RuleOutcome::rule).toList(),
                contains("shop/pull-if-not-present", "Assign/always-pull", "AssignMetadata/owner"));
        assertThat(decision.outcomes().stream().map(RuleOutcome::family).toList(),
                contains(RuleFamily.MODRULE, Gatekeeper.FAMILY, Gatekeeper.FAMILY));
        assertThat(decision.outcomes().get(1).applied().toString(), containsString("\"value\":\"Always\""));
        assertThat(decision.outcomes().get(2).applied().toString(), containsString("/metadata/labels"));
        assertThat(engine.stageRuleCount(), is(2));
    }

    @Test
    void aNamespaceSelectorSeesTheRequestsNamespaceObject() {
        Engine engine = Engine.builder().stage(Gatekeeper.stage(List.of(mutator(OWNER_LABEL)))).build();
        JsonObject other = yaml("{apiVersion: v1, kind: Namespace, metadata: {name: shop, labels: {team: other}}}");
        assertThat(mutate(engine, other).patch(), empty());
        JsonObject shop = yaml("{apiVersion: v1, kind: Namespace, metadata: {name: shop, labels: {team: shop}}}");
        assertThat(mutate(engine, shop).patch().toString(), containsString("shop-team"));
    }

    @Test
    void aFailingMutationLeavesTheObjectAndSaysWhy() {
        // A selector that needs the namespace object, which the request does not carry.
        Engine engine = Engine.builder().stage(Gatekeeper.stage(List.of(mutator(OWNER_LABEL)))).build();
        JsonValue pod = yaml(POD);
        Decision decision = engine.mutate(AdmissionRequest.create("shop", pod));
        assertThat(decision.patch(), empty());
        assertThat(decision.result(), sameInstance(pod));
        assertThat(decision.outcomes().getFirst().rule(), is(Gatekeeper.SYSTEM));
        assertThat(decision.outcomes().getFirst().family(), is(Gatekeeper.FAMILY));
        assertThat(decision.outcomes().getFirst().error(), containsString("AssignMetadata"));
    }

    /**
     * A mutator whose label selector fails when it is evaluated, limited to one namespace: Gatekeeper checks the
     * namespace lists first, so elsewhere it neither matches nor fails, and the index skips it there the same way.
     */
    @Test
    void aMutatorForOtherNamespacesIsSkippedAsGatekeepersOrderOfCriteriaWould() {
        Mutator teamOnly = mutator("""
                apiVersion: mutations.gatekeeper.sh/v1
                kind: AssignMetadata
                metadata: {name: team-a-only}
                spec:
                  match:
                    namespaces: [team-a]
                    labelSelector: {matchExpressions: [{key: app, operator: Bogus, values: [x]}]}
                  location: metadata.labels.team
                  parameters: {assign: {value: a}}
                """);
        Engine engine = Engine.builder().stage(Gatekeeper.stage(List.of(teamOnly, mutator(ASSIGN_PULL_POLICY))))
                .build();
        Decision shop = engine.mutate(AdmissionRequest.create("shop", yaml(POD)));
        assertThat(shop.outcomes().stream().map(RuleOutcome::rule).toList(), contains("Assign/always-pull"));
        Decision teamA = engine.mutate(AdmissionRequest.create("team-a", yaml(POD.replace("namespace: shop",
                "namespace: team-a"))));
        assertThat(teamA.outcomes().getFirst().error(), containsString("Bogus"));
    }

    @Test
    void manifestsOfOtherGroupsAreNotMutators() {
        assertThat(Gatekeeper.isMutator(yaml(ASSIGN_PULL_POLICY)), is(true));
        assertThat(Gatekeeper.isMutator(yaml("{apiVersion: remold.io/v1beta1, kind: ModRule}")), is(false));
        assertThat(Gatekeeper.conflicts(List.of(mutator(ASSIGN_PULL_POLICY))).isEmpty(), equalTo(true));
    }
}

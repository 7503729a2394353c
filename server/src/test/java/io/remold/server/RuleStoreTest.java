package io.remold.server;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.ModRules;
import io.remold.engine.AdmissionRequest;
import org.junit.jupiter.api.Test;

import java.io.StringReader;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

class RuleStoreTest {
    final Metrics metrics = new Metrics();
    final RuleStore store = new RuleStore("remold-system", metrics);

    static ModRule rule(String name, String select) {
        return ModRules.parse("""
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: %s, namespace: team-a}
                spec:
                  type: Reject
                  match:
                  - select: '%s'
                """.formatted(name, select), name + ".yaml").getFirst();
    }

    @Test
    void nothingIsBuiltBeforeTheSourceIsSynced() {
        store.put("a", rule("a", "$.kind"));
        store.put("b", rule("b", "$.kind"));
        assertThat(store.engine().ruleCount(), is(0));
        assertThat(store.isSynced(), is(false));
        store.synced();
        assertThat(store.engine().ruleCount(), is(2));
        assertThat(metrics.scrape(), containsString("\nremold_rule_rebuilds_total 1\n"));
    }

    @Test
    void changesAfterSyncReachTheEngine() {
        store.synced();
        store.put("a", rule("a", "$.kind"));
        store.put("b", rule("b", "$.kind"));
        store.remove("a");
        store.remove("missing");
        store.batch(sink -> { });   // returns once a build that includes everything before it is in place
        assertThat(store.engine().ruleCount(), is(1));
    }

    @Test
    void aReferenceTheSourceRefusesMakesTheRuleInvalidAndTheSourceCachesWhatValidRulesReference() {
        var used = new java.util.concurrent.atomic.AtomicReference<java.util.Set<String>>();
        store.references(new io.remold.server.rules.ReferenceSource() {
            @Override
            public void use(java.util.Set<String> kinds) {
                used.set(kinds);
            }

            @Override
            public java.util.Optional<String> refusal(String apiVersion, String kind, boolean clusterWide) {
                return apiVersion.startsWith("apps/") ? java.util.Optional.of(kind + " may not be referenced")
                        : java.util.Optional.empty();
            }

            @Override
            public Resolution resolve(io.remold.engine.ReferenceQuery query) {
                return new Resolution(null, "test");
            }
        });
        String referencing = """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: %s, namespace: team-a}
                spec:
                  type: Reject
                  references:
                  - {name: ref, apiVersion: %s, kind: %s, objectName: x, onMissing: skip}
                  match:
                  - select: '$.kind'
                """;
        var refused = store.put("a", ModRules.parse(referencing.formatted("a", "apps/v1", "Deployment"), "a.yaml")
                .getFirst());
        assertThat(refused.errors().toString(), refused.errors().getFirst().toString(),
                is("spec.references[0].kind: Deployment may not be referenced"));
        assertThat(store.put("b", ModRules.parse(referencing.formatted("b", "v1", "ConfigMap"), "b.yaml")
                .getFirst()).ok(), is(true));
        store.synced();
        assertThat(used.get(), is(java.util.Set.of("v1 ConfigMap")));
    }

    @Test
    void anInvalidRuleIsRefusedAndReplacesItsPreviousVersion() {
        store.put("a", rule("a", "$.kind"));
        var compilation = store.put("a", rule("a", "$.spec["));
        assertThat(compilation.ok(), is(false));
        assertThat(compilation.errors().getFirst().field(), is("spec.match[0].select"));
        store.synced();
        assertThat(store.engine().ruleCount(), is(0));
    }

    @Test
    void ofTwoSourcesOfOneRuleTheLaterKeyWinsWhateverTheOrderOfArrival() {
        store.put("remold.io/v1beta1/team-a/r", rule("r", "$.metadata.labels.fromRemold"));
        store.put("api.kubemod.io/v1beta1/team-a/r", rule("r", "$.metadata.labels.fromKubemod"));
        store.synced();
        assertThat(store.engine().ruleCount(), is(1));
        assertThat(rejects("{\"metadata\":{\"labels\":{\"fromRemold\":\"x\"}}}"), is(true));
        assertThat(rejects("{\"metadata\":{\"labels\":{\"fromKubemod\":\"x\"}}}"), is(false));
    }

    boolean rejects(String object) {
        try (var reader = AdmissionReview.JSON.createReader(new StringReader(object))) {
            return !store.engine().validate(new AdmissionRequest(AdmissionOperation.CREATE, "team-a",
                    reader.readObject(), null, null, null, false)).allowed();
        }
    }

    /** Closing the store stops its script rules' threads: a script of the last snapshot fails (closed) from then on. */
    @Test
    void closingTheStoreClosesTheScriptHost() {
        store.putScript("momiji.com/v1/team-a/deny", io.remold.scripting.Scripts.parse(io.remold.api.YamlJson.parse("""
                apiVersion: momiji.com/v1
                kind: JsAdmission
                metadata: {name: deny, namespace: team-a}
                spec:
                  js: "function jsa_validate(obj) { return {Allowed: false, Message: 'no ' + obj.kind}; }"
                """, "deny.yaml").getFirst().asJsonObject()));
        store.synced();
        assertThat(rejection("{\"kind\":\"Pod\"}"), containsString("no Pod"));
        store.close();
        assertThat(rejection("{\"kind\":\"Pod\"}"), containsString("jsa_validate the script host is closed"));
        store.put("a", rule("a", "$.kind"));   // kept, not built: a closed store builds nothing
        store.batch(sink -> { });
        assertThat(store.engine().ruleCount(), is(0));
    }

    String rejection(String object) {
        try (var reader = AdmissionReview.JSON.createReader(new StringReader(object))) {
            return store.engine().validate(new AdmissionRequest(AdmissionOperation.CREATE, "team-a",
                    reader.readObject(), null, null, null, false)).rejectionMessage();
        }
    }

    static io.remold.gatekeeper.mutators.Mutator assign(String name, String location) {
        return io.remold.gatekeeper.Gatekeeper.parse(io.remold.api.YamlJson.parse("""
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata: {name: %s}
                spec:
                  applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
                  location: "%s"
                  parameters: {assign: {value: x}}
                """.formatted(name, location), name + ".yaml").getFirst().asJsonObject());
    }

    /** Mutators whose locations disagree on a node's type disable each other; the listener hears which, and when. */
    @Test
    void schemaConflictsReachTheListenerWhenTheyChange() {
        var heard = new java.util.ArrayList<java.util.Map<String, String>>();
        store.onMutatorConflicts(heard::add);
        store.synced();
        store.putMutator("k/list", assign("list", "spec.containers[name: a].image"));
        store.putMutator("k/object", assign("object", "spec.containers.image"));
        store.putMutator("k/other", assign("other", "spec.hostname"));
        store.batch(sink -> { });
        assertThat(heard.getLast().keySet(), is(java.util.Set.of("k/list", "k/object")));
        assertThat(heard.getLast().get("k/list"), containsString("disagree on the type of spec.containers"));
        int reports = heard.size();
        store.putMutator("k/other", assign("other", "spec.subdomain")); // no change in conflicts: no report
        store.batch(sink -> { });
        assertThat(heard.size(), is(reports));
        store.remove("k/object");
        store.batch(sink -> { });
        assertThat(heard.getLast(), is(java.util.Map.of()));
    }

    /** Rule churn must not grow the per-rule series without bound: a deleted rule's counters go at the next build. */
    @Test
    void theCountersOfADeletedRuleGoWithIt() {
        store.synced();
        store.put("a", rule("a", "$.kind"));
        store.put("b", rule("b", "$.kind"));
        store.batch(sink -> { });
        metrics.rule("team-a/a", Metrics.RuleEvent.match);
        metrics.rule("team-a/b", Metrics.RuleEvent.match);
        store.remove("a");
        store.batch(sink -> { });
        assertThat(metrics.scrape(), not(containsString("rule=\"team-a/a\"")));
        assertThat(metrics.scrape(), containsString("rule=\"team-a/b\""));
    }
}

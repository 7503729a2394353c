package io.remold.server.rules;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.ModRules;
import io.remold.engine.AdmissionRequest;
import io.remold.rules.Snapshot;
import org.junit.jupiter.api.Test;

import java.io.StringReader;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/** Public for {@link #rule}, which the server package's tests share. */
public class RuleStoreTest {
    static final io.remold.scripting.ScriptFamily SCRIPTS = new io.remold.scripting.ScriptFamily();
    static final io.remold.gatekeeper.GatekeeperFamily MUTATORS = new io.remold.gatekeeper.GatekeeperFamily();
    final RuleStore store = new RuleStore("remold-system");
    /** The snapshots the store installed, as its listeners heard them. */
    final java.util.List<Snapshot> installed = new java.util.concurrent.CopyOnWriteArrayList<>();

    {
        store.onSnapshot(installed::add);
    }

    /** A Reject rule of namespace team-a that matches what {@code select} finds. */
    public static ModRule rule(String name, String select) {
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

    /** A rule's mode decides its engine; a change of mode alone rebuilds; a removed rule is in neither. */
    @Test
    void aRulesModeMovesItBetweenTheEnforcingAndTheShadowEngine() {
        var shadow = new io.remold.api.RuleControls(io.remold.api.RuleMode.SHADOW,
                io.remold.api.ExistingPolicy.IGNORE);
        store.synced();
        store.put("a", rule("a", "$.kind"), shadow);
        store.batch(sink -> { });
        assertThat(store.engine().ruleCount(), is(0));
        assertThat(store.snapshot().shadow().orElseThrow().engine().ruleCount(), is(1));
        assertThat(store.snapshot().mode("team-a/a"), is(io.remold.api.RuleMode.SHADOW));
        store.put("a", rule("a", "$.kind"));
        store.batch(sink -> { });
        assertThat(store.engine().ruleCount(), is(1));
        assertThat(store.snapshot().shadow().isPresent(), is(false));
        store.put("a", rule("a", "$.kind"), shadow);
        store.remove("a");
        store.batch(sink -> { });
        assertThat(store.snapshot().shadow().isPresent(), is(false));
        assertThat(store.snapshot().modes().isEmpty(), is(true));
    }

    @Test
    void nothingIsBuiltBeforeTheSourceIsSynced() {
        store.put("a", rule("a", "$.kind"));
        store.put("b", rule("b", "$.kind"));
        assertThat(store.engine().ruleCount(), is(0));
        assertThat(store.isReady(), is(false));
        store.synced();
        assertThat(store.isReady(), is(true));
        assertThat(store.engine().ruleCount(), is(2));
        assertThat(installed.size(), is(1));
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
        store.onSnapshot(snapshot -> used.set(snapshot.referencedKinds()));
        store.references(new io.remold.server.rules.ReferenceSource() {
            @Override
            public void use(java.util.Set<String> kinds) {
                throw new AssertionError("the snapshot's listeners are told");
            }

            @Override
            public java.util.Optional<String> refusal(String apiVersion, String kind, boolean clusterWide) {
                return apiVersion.startsWith("apps/") ? java.util.Optional.of(kind + " may not be referenced")
                        : java.util.Optional.empty();
            }

            @Override
            public java.util.Optional<String> unreadable(io.remold.server.rules.Requester author, String namespace,
                                                         String apiVersion, String kind) {
                return java.util.Optional.empty();
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
        try (var reader = jakarta.json.Json.createReader(new StringReader(object))) {
            return !store.engine().validate(new AdmissionRequest(AdmissionOperation.CREATE, "team-a",
                    reader.readObject(), null, null, null, false)).allowed();
        }
    }

    /** Closing the store stops its script rules' threads: a script of the last snapshot fails (closed) from then on. */
    @Test
    void closingTheStoreClosesTheScriptHost() {
        store.tenantScripts(io.remold.rules.TenantScripts.parse("team-a"));
        store.put("momiji.com/v1/team-a/deny", SCRIPTS, io.remold.scripting.Scripts.parse(io.remold.api.YamlJson.parse("""
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
        try (var reader = jakarta.json.Json.createReader(new StringReader(object))) {
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

    /** Mutators whose locations disagree on a node's type disable each other; each snapshot says which. */
    @Test
    void schemaConflictsReachTheListenerWithEachSnapshot() {
        var heard = new java.util.ArrayList<java.util.Map<String, String>>();
        store.onSnapshot(snapshot -> heard.add(snapshot.disabled()));
        store.synced();
        store.put("k/list", MUTATORS, assign("list", "spec.containers[name: a].image"));
        store.put("k/object", MUTATORS, assign("object", "spec.containers.image"));
        store.put("k/other", MUTATORS, assign("other", "spec.hostname"));
        store.batch(sink -> { });
        assertThat(heard.getLast().keySet(), is(java.util.Set.of("k/list", "k/object")));
        assertThat(heard.getLast().get("k/list"), containsString("disagree on the type of spec.containers"));
        store.put("k/other", MUTATORS, assign("other", "spec.subdomain"));
        store.batch(sink -> { });
        assertThat(heard.getLast().keySet(), is(java.util.Set.of("k/list", "k/object")));
        store.remove("k/object");
        store.batch(sink -> { });
        assertThat(heard.getLast(), is(java.util.Map.of()));
    }

    static io.remold.scripting.ScriptRule script(String name, String js) {
        return io.remold.scripting.Scripts.parse(io.remold.api.YamlJson.parse("""
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: %s, namespace: team-a}
                spec:
                  type: Script
                  js: "%s"
                """.formatted(name, js), name + ".yaml").getFirst().asJsonObject());
    }

    /** Each script rule's start reaches the listener under its key when it ends; the F1 rule's names the bound. */
    @Test
    void scriptStartsReachTheListenerWithWhyTheyFailed() throws InterruptedException {
        var heard = new java.util.concurrent.ConcurrentHashMap<String, java.util.Optional<String>>();
        var ended = new java.util.concurrent.CountDownLatch(2);
        store.onScriptStarts((key, failure) -> {
            heard.put(key, failure);
            ended.countDown();
        });
        store.tenantScripts(io.remold.rules.TenantScripts.parse("team-a"));
        String validate = "function jsa_validate(op, obj) { return; }";
        store.put("k/big", SCRIPTS, script("big", "var b = new ArrayBuffer(1 << 30); " + validate));
        store.put("k/good", SCRIPTS, script("good", validate));
        try {
            store.synced();
            assertThat(ended.await(30, java.util.concurrent.TimeUnit.SECONDS), is(true));
        } finally {
            store.close();
        }
        assertThat(heard.get("k/big").orElseThrow(), containsString("16 MiB per ArrayBuffer"));
        assertThat(heard.get("k/good"), is(java.util.Optional.empty()));
    }

    /** Each snapshot names its rules as outcomes do (what the metrics keep counters for): a deleted rule's goes. */
    @Test
    void aSnapshotNamesOnlyTheRulesItHolds() {
        store.synced();
        store.put("a", rule("a", "$.kind"));
        store.put("b", rule("b", "$.kind"));
        store.batch(sink -> { });
        assertThat(installed.getLast().outcomeNames().contains("team-a/a"), is(true));
        store.remove("a");
        store.batch(sink -> { });
        assertThat(installed.getLast().outcomeNames().contains("team-a/a"), is(false));
        assertThat(installed.getLast().outcomeNames().contains("team-a/b"), is(true));
    }

    /** A failed first build leaves the store not ready (no empty engine passes for the rules); a later one may not. */
    @Test
    void theStoreIsReadyOnlyOnceABuildAfterSyncSucceeded() {
        var attempts = new java.util.concurrent.atomic.AtomicInteger();
        try (var failing = new RuleStore("remold-system", () -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("no GraalJS here");
        })) {
            failing.tenantScripts(io.remold.rules.TenantScripts.parse("team-a"));
            failing.put("a", rule("a", "$.kind"));
            failing.put("k/s", SCRIPTS, script("s", "function jsa_validate(op, obj) { return; }"));
            var thrown = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, failing::synced);
            assertThat(thrown.getMessage(), containsString("no GraalJS here"));
            assertThat(failing.isReady(), is(false));
            assertThat(failing.engine().ruleCount(), is(0));
            failing.batch(sink -> sink.remove("k/s"));   // a set without scripts needs no host
            assertThat(failing.isReady(), is(true));
            assertThat(failing.engine().ruleCount(), is(1));
            assertThat(attempts.get(), is(1));
        }
    }

    /** A batch is built once, after its last change; its changes do not hold the store's lock meanwhile. */
    @Test
    void aBatchIsOneBuildAndHoldsNoLockWhileItRuns() {
        store.synced();
        int before = installed.size();
        store.batch(sink -> {
            sink.put("a", rule("a", "$.kind"));
            sink.put("b", rule("b", "$.kind"));
            // Another thread (the readiness probe) gets the lock while the batch reads its files.
            assertThat(java.util.concurrent.CompletableFuture.supplyAsync(store::isReady).orTimeout(30,
                    java.util.concurrent.TimeUnit.SECONDS).join(), is(true));
            sink.remove("a");
        });
        assertThat(store.engine().ruleCount(), is(1));
        assertThat(installed.size(), is(before + 1));
    }

    /** Each installed snapshot reaches every listener once, in the order they registered, after it is in force. */
    @Test
    void listenersHearEachSnapshotInOrderOnceItIsInForce() {
        var heard = new java.util.ArrayList<String>();
        store.onSnapshot(snapshot -> heard.add("first " + (store.engine() == snapshot.engine())));
        store.onSnapshot(snapshot -> heard.add("second " + snapshot.engine().ruleCount()));
        store.put("a", rule("a", "$.kind"));
        store.synced();
        store.batch(sink -> sink.put("b", rule("b", "$.kind")));
        assertThat(heard, is(java.util.List.of("first true", "second 1", "first true", "second 2")));
    }
}

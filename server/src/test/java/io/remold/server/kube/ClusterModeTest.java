package io.remold.server.kube;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static io.remold.server.Eventually.await;
import static io.remold.server.kube.FakeApiServer.event;
import static io.remold.server.kube.FakeApiServer.ok;
import static io.remold.server.kube.Objects.PATCH_SPEC;
import static io.remold.server.kube.Objects.modRule;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

/**
 * The whole cluster mode against a loopback fake of the API server: real informers (list, then watch events),
 * real leader election. Lists of built-in objects carry no {@code kind} on their items, as the real API server's.
 */
class ClusterModeTest {
    private static final String RULES = "/apis/remold.io/v1beta1/modrules";
    private static final String KUBEMOD_RULES = "/apis/api.kubemod.io/v1beta1/modrules";
    private static final String LEASE = "/apis/coordination.k8s.io/v1/namespaces/remold-system/leases/remold-leader";
    private static final String LEASE_HELD = ("{'apiVersion':'coordination.k8s.io/v1','kind':'Lease','metadata':"
            + "{'name':'remold-leader','namespace':'remold-system','resourceVersion':'1'},'spec':{'holderIdentity':"
            + "'test','leaseDurationSeconds':15,'acquireTime':'2026-01-02T03:04:05.000000Z',"
            + "'renewTime':'2026-01-02T03:04:05.000000Z','leaseTransitions':0}}").replace('\'', '"');
    private static final String STATUS_PATH = "/apis/remold.io/v1beta1/namespaces/team-a/modrules/%s/status";

    private final FakeApiServer api = new FakeApiServer();
    private final RecordingSink sink = new RecordingSink();
    private final Informers informers = new Informers(new KubeClients(api.client(), api.client()));

    ClusterModeTest() throws IOException {
        api.on("GET", "/api/v1/namespaces", ok(list("v1", "NamespaceList",
                        "{'metadata':{'name':'team-a','labels':{'color':'blue'}}}",
                        "{'metadata':{'name':'kube-system','labels':{'admission.remold.io/ignore':'true'}}}")))
                .on("GET", "/api/v1/nodes", ok(list("v1", "NodeList",
                        "{'metadata':{'name':'node-1','labels':{'zone':'z1'},'managedFields':[{'manager':'k'}]}}")))
                // The Lease already names this replica: it renews (PUT) and stays leader for the whole test.
                .on("GET", LEASE, ok(LEASE_HELD))
                .on("PUT", LEASE, ok(LEASE_HELD))
                .on("PATCH", STATUS_PATH.formatted("r"), ok("{}"))
                .on("PATCH", STATUS_PATH.formatted("broken"), ok("{}"));
    }

    @AfterEach
    void stop() {
        informers.close();
        api.close();
    }

    private static String list(String apiVersion, String kind, String... items) {
        return ("{'apiVersion':'" + apiVersion + "','kind':'" + kind + "','metadata':{'resourceVersion':'10'},"
                + "'items':[" + String.join(",", items) + "]}").replace('\'', '"');
    }

    private ClusterMode start() {
        return ClusterMode.start(new ClusterModeConfig(null, false, null, null, null, "test", null), sink, informers);
    }

    @Test
    void deliversListedRulesServesCachesAndWritesStatusAsLeader() {
        api.on("GET", RULES, ok(list("remold.io/v1beta1", "ModRuleList", modRule("r", 1, PATCH_SPEC, null))));

        try (var mode = start()) {
            await(mode::synced);
            assertThat(sink.synced, is(true));
            assertThat(sink.keys(), contains("remold.io/v1beta1/modrules/team-a/r"));

            var refs = mode.refs();
            assertThat(refs.ignored("kube-system"), is(true));
            assertThat(refs.ignored("team-a"), is(false));
            assertThat(refs.namespace("team-a").orElseThrow().toString(),
                    containsString("\"kind\":\"Namespace\",\"apiVersion\":\"v1\""));
            assertThat("without managedFields", refs.node("node-1").orElseThrow().toString(),
                    is("{\"metadata\":{\"name\":\"node-1\",\"labels\":{\"zone\":\"z1\"}},"
                            + "\"kind\":\"Node\",\"apiVersion\":\"v1\"}"));

            String status = STATUS_PATH.formatted("r");
            await(() -> !api.requests("PATCH", status).isEmpty());
            assertThat(api.requests("PATCH", status).getFirst().body(),
                    containsString("\"type\":\"Ready\",\"status\":\"True\""));
            assertThat("only the leader writes status", mode.leader(), is(true));
        }
    }

    @Test
    void watchEventsAddReplaceAndRemoveRules() {
        String broken = "{'type':'Patch','match':[{'select':'broken','matchValue':'x'}]}";
        api.on("GET", RULES, ok(list("remold.io/v1beta1", "ModRuleList")))
                .onWatch(RULES,
                        event("ADDED", modRule("r", 1, PATCH_SPEC, null)),
                        event("ADDED", modRule("broken", 1, broken, null)),
                        event("MODIFIED", modRule("r", 2, PATCH_SPEC.replace("blue", "green"), null)),
                        event("DELETED", modRule("r", 2, PATCH_SPEC.replace("blue", "green"), null)));

        try (var mode = start()) {
            // The informer queue keeps the order of each rule's events, not across rules: its deltas are grouped by
            // key, so r's removal may come before broken's put.
            await(() -> sink.removes().contains("remold.io/v1beta1/modrules/team-a/r")
                    && sink.puts().contains("remold.io/v1beta1/modrules/team-a/broken"));
            assertThat(sink.puts(), containsInAnyOrder("remold.io/v1beta1/modrules/team-a/r",
                    "remold.io/v1beta1/modrules/team-a/broken", "remold.io/v1beta1/modrules/team-a/r"));
            assertThat(sink.keys(), empty());

            String status = STATUS_PATH.formatted("broken");
            await(() -> !api.requests("PATCH", status).isEmpty());
            assertThat(api.requests("PATCH", status).getFirst().body(), containsString(
                    "\"status\":\"False\",\"reason\":\"CompileError\",\"message\":\"spec.match[0].select (at 3): "
                            + "unexpected end\""));
        }
    }

    @Test
    void everyRuleVersionAndRemovalIsToldToTheRuleEventsButProvidersAreNot() {
        api.on("GET", RULES, ok(list("remold.io/v1beta1", "ModRuleList")))
                .on("GET", "/apis/remold.io/v1beta1/providers", ok(list("remold.io/v1beta1", "ProviderList",
                        "{'apiVersion':'remold.io/v1beta1','kind':'Provider','metadata':{'name':'p'},'spec':"
                                + "{'url':'https://p.remold-system:8443','timeout':3,'caBundle':''}}")))
                .onWatch(RULES,
                        event("ADDED", modRule("r", 1, PATCH_SPEC, null)),
                        event("MODIFIED", modRule("r", 2, PATCH_SPEC.replace("blue", "green"), null)),
                        event("DELETED", modRule("r", 2, PATCH_SPEC.replace("blue", "green"), null)));
        var events = new java.util.concurrent.CopyOnWriteArrayList<String>();
        var recording = new io.remold.server.existing.RuleEvents() {
            @Override
            public void changed(String group, String version, String plural, jakarta.json.JsonObject manifest) {
                events.add("changed " + group + "/" + version + " " + plural + " "
                        + manifest.getJsonObject("metadata").getInt("generation"));
            }

            @Override
            public void removed(String group, String version, String plural, String namespace, String name) {
                events.add("removed " + group + "/" + version + " " + plural + " " + namespace + "/" + name);
            }
        };

        try (var mode = ClusterMode.start(new ClusterModeConfig(null, false, null, null, null, "test", null), sink,
                informers, recording)) {
            await(mode::synced); // the Provider, listed, was handed to its source by then
            await(() -> events.size() >= 3);
            assertThat(events, contains("changed remold.io/v1beta1 modrules 1", "changed remold.io/v1beta1 modrules 2",
                    "removed remold.io/v1beta1 modrules team-a/r"));
        }
    }

    @Test
    void kubeModRulesAreWatchedWhenTheirCrdIsServed() {
        String kubemodRule = modRule("k", 1, PATCH_SPEC, null).replace("remold.io/v1beta1", "api.kubemod.io/v1beta1");
        api.on("GET", RULES, ok(list("remold.io/v1beta1", "ModRuleList", modRule("r", 1, PATCH_SPEC, null))))
                .on("GET", KUBEMOD_RULES, ok(list("api.kubemod.io/v1beta1", "ModRuleList", kubemodRule)))
                .on("PATCH", "/apis/api.kubemod.io/v1beta1/namespaces/team-a/modrules/k/status", ok("{}"));

        try (var mode = start()) {
            await(mode::synced);
            assertThat(sink.keys(), containsInAnyOrder("remold.io/v1beta1/modrules/team-a/r",
                    "api.kubemod.io/v1beta1/modrules/team-a/k"));
        }
    }

    @Test
    void gatekeeperMutatorsAreWatchedWhenTheirCrdsAreServedAndGetGatekeepersByPodStatus() {
        String assign = """
                {'apiVersion':'mutations.gatekeeper.sh/v1','kind':'Assign','metadata':{'name':'pull-always',
                 'generation':2,'resourceVersion':'5'},
                 'spec':{'applyTo':[{'groups':[''],'kinds':['Pod'],'versions':['v1']}],
                 'location':'spec.containers[name: *].imagePullPolicy',
                 'parameters':{'assign':{'value':'Always'}}}}""";
        String broken = assign.replace("pull-always", "broken").replace("'location':'spec.containers", "'location':'.spec");
        api.on("GET", RULES, ok(list("remold.io/v1beta1", "ModRuleList")))
                .on("GET", "/apis/mutations.gatekeeper.sh/v1/assign",
                        ok(list("mutations.gatekeeper.sh/v1", "AssignList", assign, broken)))
                .on("PATCH", "/apis/mutations.gatekeeper.sh/v1/assign/pull-always/status", ok("{}"))
                .on("PATCH", "/apis/mutations.gatekeeper.sh/v1/assign/broken/status", ok("{}"));

        try (var mode = start()) {
            await(mode::synced);
            assertThat(sink.mutators.keySet(), contains("mutations.gatekeeper.sh/v1/assign//pull-always"));
            assertThat(sink.removes(), contains("mutations.gatekeeper.sh/v1/assign//broken"));
            String ok = "/apis/mutations.gatekeeper.sh/v1/assign/pull-always/status";
            await(() -> !api.requests("PATCH", ok).isEmpty());
            assertThat(api.requests("PATCH", ok).getFirst().body(), containsString(
                    "\"byPod\":[{\"id\":\"test\",\"observedGeneration\":2,\"operations\":[\"mutation-webhook\"],"
                            + "\"enforced\":true}]"));
            String failed = "/apis/mutations.gatekeeper.sh/v1/assign/broken/status";
            await(() -> !api.requests("PATCH", failed).isEmpty());
            assertThat(api.requests("PATCH", failed).getFirst().body(), containsString(
                    "\"enforced\":false,\"errors\":[{\"type\":\"CompileError\",\"message\":\"spec.location: "));
        }
    }

    /**
     * The KindIT failure of 2026-11-27: a replica that started before the bundle's KubeMod CRD was served looked for
     * it again only a minute later, while the leader, which saw it, wrote the rules Ready.
     */
    @Test
    void underKubemodCompatTheReplicaIsNotSyncedUntilKubeModsCrdIsServed() {
        api.on("GET", RULES, ok(list("remold.io/v1beta1", "ModRuleList")));

        try (var mode = ClusterMode.start(new ClusterModeConfig(null, true, null, null, null, "test", null), sink,
                informers)) {
            await(() -> api.requests("GET", KUBEMOD_RULES).size() >= 2);
            assertThat(mode.synced(), is(false));
            assertThat(sink.synced, is(false));

            String kubemodRule = modRule("k", 1, PATCH_SPEC, null)
                    .replace("remold.io/v1beta1", "api.kubemod.io/v1beta1");
            api.on("GET", KUBEMOD_RULES, ok(list("api.kubemod.io/v1beta1", "ModRuleList", kubemodRule)))
                    .on("PATCH", "/apis/api.kubemod.io/v1beta1/namespaces/team-a/modrules/k/status", ok("{}"));
            await(mode::synced);
            assertThat(sink.keys(), contains("api.kubemod.io/v1beta1/modrules/team-a/k"));
        }
    }

    @Test
    void withoutKubeModsCrdOnlyRemoldRulesAreWatched() {
        api.on("GET", RULES, ok(list("remold.io/v1beta1", "ModRuleList", modRule("r", 1, PATCH_SPEC, null))));

        try (var mode = start()) {
            await(mode::synced);
            assertThat(sink.keys(), contains("remold.io/v1beta1/modrules/team-a/r"));
            assertThat("only the probe", api.requests("GET", KUBEMOD_RULES).stream()
                    .map(FakeApiServer.Request::query).toList(), contains(containsString("limit=1")));
        }
    }
}

package io.remold.server.existing;

import io.remold.json.JsonTree;
import io.remold.rules.impact.ImpactTally;
import io.remold.server.kube.FakeApiServer;
import io.remold.server.rules.RuleStore;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static io.remold.server.Eventually.await;
import static io.remold.server.existing.FakeObjects.json;
import static io.remold.server.kube.FakeApiServer.ok;
import static io.remold.server.kube.FakeApiServer.status;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

/**
 * Impact scans against the loopback fake of the API server, through the real client: discovery, paginated lists with
 * continue tokens (two objects a page), 410 Gone, and the status patches the leader writes.
 */
class ImpactScansTest {
    private static final String DEPLOYMENTS = "/apis/apps/v1/namespaces/team-a/deployments";
    private static final String ALL_DEPLOYMENTS = "/apis/apps/v1/deployments";
    private static final ScanSettings SETTINGS = new ScanSettings(1e9, Duration.ofMinutes(10), 2, 2048, 2);
    private static final Instant START = Instant.parse("2026-12-04T10:00:00Z");
    /** Labels of d-0..d-4 in team-a: a rule adding color=blue changes d-0, d-2, d-3 and d-4. */
    private static final String[] LABELS = {"{'app':'a'}", "{'color':'blue'}", "{'tier':'forbidden'}", "{}",
            "{'app':'e'}"};
    private static final String ADD_BLUE = "{'type':'Patch','match':[{'select':'$.kind','matchValue':'Deployment'}],"
            + "'patch':[{'op':'add','path':'/metadata/labels/color','value':'blue'}]}";
    private static final String REJECT_FORBIDDEN = "{'type':'Reject','match':[{'select':'$.kind',"
            + "'matchValue':'Deployment'},{'select':'$.metadata.labels.tier','matchValue':'forbidden'}],"
            + "'rejectMessage':'tier forbidden'}";
    private static final String ANY_KIND = "{'type':'Patch','match':[{'select':'$.metadata.labels.app',"
            + "'matchValue':'a'}],'patch':[{'op':'add','path':'/metadata/labels/seen','value':'yes'}]}";

    private final FakeApiServer api = new FakeApiServer();
    /** The scans' clock: the test moves it (a rescan falls due), nothing else does. */
    private final AtomicReference<Instant> now = new AtomicReference<>(START);
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    };
    private final RuleStore store = new RuleStore("remold-system");
    private final ImpactTally tally = new ImpactTally(10);
    private final RecordingListener listener = new RecordingListener();
    private final RecordingWrites writes = new RecordingWrites();
    private final List<ImpactScans> scans = new ArrayList<>();
    private final FakeObjects deployments = FakeObjects.deployments("team-a", LABELS);

    ImpactScansTest() throws IOException {
        FakeObjects.serveDiscovery(api);
        api.on("GET", DEPLOYMENTS, deployments::list)
                .on("GET", ALL_DEPLOYMENTS, deployments::list);
    }

    @AfterEach
    void stop() {
        scans.forEach(ImpactScans::close);
        store.close();
        api.close();
    }

    private ImpactScans start(BooleanSupplier leader) {
        var started = new ImpactScans(api.client(), store, SETTINGS, "remold-system", null, tally, listener, writes,
                clock);
        started.start(leader, name -> null);
        scans.add(started);
        return started;
    }

    private static String statusPath(String namespace, String name) {
        return "/apis/remold.io/v1beta1/namespaces/" + namespace + "/modrules/" + name + "/status";
    }

    private static JsonObject modRule(String namespace, String name, long generation, String annotations,
                                      String spec) {
        return parse(json("{'apiVersion':'remold.io/v1beta1','kind':'ModRule','metadata':{'name':'" + name
                + "','namespace':'" + namespace + "','generation':" + generation + ",'annotations':" + annotations
                + "},'spec':" + spec + "}"));
    }

    private static JsonObject parse(String json) {
        return JsonTree.parse(json.getBytes(StandardCharsets.UTF_8)).asJsonObject();
    }

    /** The impact status the leader last wrote for the rule, once it no longer says Running. */
    private JsonObject finalImpact(String namespace, String name) {
        String path = statusPath(namespace, name);
        return await(() -> {
            var patches = api.requests("PATCH", path);
            return patches.isEmpty() ? null : parse(patches.getLast().body()).getJsonObject("status")
                    .getJsonObject("impact");
        }, impact -> impact != null && !"Running".equals(impact.getString("state")));
    }

    static Stream<Arguments> rules() {
        return Stream.of(
                Arguments.of("add-blue", "{'remold.io/mode':'Shadow'}", ADD_BLUE, """
                        {"observedGeneration":1,"requested":null,"state":"Complete","message":null,"evaluated":5,\
                        "wouldChange":4,"wouldRefuse":0,"failed":0,"applied":null,"conflicts":null,"refused":null,\
                        "samples":[{"apiVersion":"apps/v1","kind":"Deployment","namespace":"team-a","name":"d-0",\
                        "verdict":"Changes","patch":"[{\\"op\\":\\"add\\",\\"path\\":\\"/metadata/labels/color\\",\
                        \\"value\\":\\"blue\\"}]"},{"apiVersion":"apps/v1","kind":"Deployment","namespace":"team-a",\
                        "name":"d-2","verdict":"Changes","patch":"[{\\"op\\":\\"add\\",\\"path\\":\
                        \\"/metadata/labels/color\\",\\"value\\":\\"blue\\"}]"}],"startedAt":"2026-12-04T10:00:00Z",\
                        "completedAt":"2026-12-04T10:00:00Z","progress":null}"""),
                Arguments.of("reject-forbidden", "{}", REJECT_FORBIDDEN, """
                        {"observedGeneration":1,"requested":null,"state":"Complete","message":null,"evaluated":5,\
                        "wouldChange":0,"wouldRefuse":1,"failed":0,"applied":null,"conflicts":null,"refused":null,\
                        "samples":[{"apiVersion":"apps/v1","kind":"Deployment","namespace":"team-a","name":"d-2",\
                        "verdict":"Refuses","message":"tier forbidden"}],"startedAt":"2026-12-04T10:00:00Z",\
                        "completedAt":"2026-12-04T10:00:00Z","progress":null}"""),
                Arguments.of("broken", "{}", ADD_BLUE.replace("'$.kind'", "'$.kind =='"), """
                        {"observedGeneration":1,"requested":null,"state":"Failed","message":"the rule is not in \
                        force: spec.match[0].select (at 9): unexpected end of expression at 9 in '$.kind =='",\
                        "evaluated":0,"wouldChange":0,\
                        "wouldRefuse":0,"failed":0,"applied":null,"conflicts":null,"refused":null,"samples":[],\
                        "startedAt":"2026-12-04T10:00:00Z","completedAt":"2026-12-04T10:00:00Z","progress":null}"""),
                Arguments.of("any-kind", "{}", ANY_KIND, """
                        {"observedGeneration":1,"requested":null,"state":"KindsUnknown","message":"the rule may \
                        decide objects of any kind: name those to scan in its annotation remold.io/impact-kinds \
                        ([group/]Kind, comma-separated)","evaluated":0,"wouldChange":0,"wouldRefuse":0,"failed":0,\
                        "applied":null,"conflicts":null,"refused":null,"samples":[],\
                        "startedAt":"2026-12-04T10:00:00Z","completedAt":"2026-12-04T10:00:00Z","progress":null}"""),
                Arguments.of("any-kind-named", "{'remold.io/impact-kinds':'apps/Deployment,Service,Namespace,Secret,Gadget'}",
                        ANY_KIND, """
                        {"observedGeneration":1,"requested":null,"state":"Complete","message":"not served, not \
                        scanned: core Gadget; not scanned for a namespaced rule: v1 secrets","evaluated":5,"wouldChange":1,"wouldRefuse":0,"failed":0,\
                        "applied":null,"conflicts":null,"refused":null,"samples":[{"apiVersion":"apps/v1",\
                        "kind":"Deployment","namespace":"team-a","name":"d-0","verdict":"Changes","patch":\
                        "[{\\"op\\":\\"add\\",\\"path\\":\\"/metadata/labels/seen\\",\\"value\\":\\"yes\\"}]"}],\
                        "startedAt":"2026-12-04T10:00:00Z","completedAt":"2026-12-04T10:00:00Z","progress":null}"""));
    }

    /** Each rule alone against the same five Deployments: the exact status.impact it gets. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void aRulesImpactOnExistingObjectsIsItsStatus(String name, String annotations, String spec, String expected) {
        api.on("PATCH", statusPath("team-a", name), ok("{}"))
                .on("GET", "/api/v1/namespaces/team-a/services", ok(json("{'apiVersion':'v1','kind':'ServiceList',"
                        + "'metadata':{'continue':''},'items':[]}")));
        start(() -> true).changed("remold.io", "v1beta1", "modrules", modRule("team-a", name, 1, annotations, spec));

        assertThat(finalImpact("team-a", name).toString(), is(expected));
        assertThat("a tenant's rule lists its own namespace only, and no cluster-scoped kind", lists(),
                everyItem(containsString("/namespaces/team-a/")));
    }

    /** The paths of the LISTs of objects (not of discovery). */
    private List<String> lists() {
        return api.requests().stream().filter(r -> r.method().equals("GET") && !DISCOVERY.contains(r.path()))
                .map(FakeApiServer.Request::path).toList();
    }

    private static final List<String> DISCOVERY = List.of("/api", "/api/v1", "/apis", "/apis/apps/v1");

    /** The continue tokens of the LISTs of {@code path}, in order ("" for a first page). */
    private List<String> tokens(String path) {
        return api.requests("GET", path).stream().map(r -> r.parameter("continue") == null ? ""
                : r.parameter("continue")).toList();
    }

    private static final String ADD_BLUE_IMPACT = rules().findFirst().orElseThrow().get()[3].toString();

    @Test
    void aRuleOfTheSystemNamespaceListsEveryNamespace() {
        api.on("PATCH", statusPath("remold-system", "add-blue"), ok("{}"));
        // Without a targetNamespaceRegex a system namespace rule decides only its own namespace's objects (KubeMod).
        start(() -> true).changed("remold.io", "v1beta1", "modrules", modRule("remold-system", "add-blue", 1,
                "{'remold.io/mode':'Shadow'}", ADD_BLUE.replace("{'type'", "{'targetNamespaceRegex':'.*','type'")));

        assertThat(finalImpact("remold-system", "add-blue").toString(), is(ADD_BLUE_IMPACT));
        assertThat(lists(), contains(ALL_DEPLOYMENTS, ALL_DEPLOYMENTS, ALL_DEPLOYMENTS));
        assertThat(listener.calls(), contains("began remold-system/add-blue", "ended remold-system/add-blue complete"));
        assertThat("every verdict went to the sink", tally.impacts().getFirst().total(),
                is(new ImpactTally.Counts(5, 4, 0, 0)));
    }

    /**
     * The lease is lost after the first page's progress is written: a second leader, which sees that status, resumes
     * from its continue token, and the totals are those of one whole scan.
     */
    @Test
    void aNewLeaderResumesARunningScanFromItsContinueToken() {
        String path = statusPath("team-a", "add-blue");
        api.on("PATCH", path, ok("{}"));
        JsonObject rule = modRule("team-a", "add-blue", 1, "{'remold.io/mode':'Shadow'}", ADD_BLUE);
        start(() -> api.requests("PATCH", path).size() < 2).changed("remold.io", "v1beta1", "modrules", rule);
        await(() -> listener.calls().contains("ended team-a/add-blue stopped"));
        JsonObject progress = parse(api.requests("PATCH", path).getLast().body());
        assertThat(progress.getJsonObject("status").getJsonObject("impact").getString("state"), is("Running"));

        start(() -> true).changed("remold.io", "v1beta1", "modrules",
                JsonTree.with(rule, "status", progress.getJsonObject("status")));

        assertThat(finalImpact("team-a", "add-blue").toString(), is(ADD_BLUE_IMPACT));
        assertThat("the first leader listed two pages, the second the rest", tokens(DEPLOYMENTS),
                contains("", "2", "2", "4"));
        assertThat(listener.calls(), contains("began team-a/add-blue", "ended team-a/add-blue stopped",
                "began team-a/add-blue", "ended team-a/add-blue complete"));
    }

    @Test
    void anExpiredContinueTokenListsTheKindAgainAndItsCountsStartOver() {
        api.on("PATCH", statusPath("team-a", "add-blue"), ok("{}"));
        deployments.expireOnce.add("4");
        start(() -> true).changed("remold.io", "v1beta1", "modrules",
                modRule("team-a", "add-blue", 1, "{'remold.io/mode':'Shadow'}", ADD_BLUE));

        assertThat(finalImpact("team-a", "add-blue").toString(), is(ADD_BLUE_IMPACT));
        assertThat(tokens(DEPLOYMENTS), contains("", "2", "4", "", "2", "4"));
    }

    @Test
    void aNewValueOfTheRequestAnnotationScansAgainAndOnlyThat() {
        api.on("PATCH", statusPath("team-a", "add-blue"), ok("{}"))
                .on("PATCH", statusPath("team-a", "other"), ok("{}"));
        ImpactScans leader = start(() -> true);
        JsonObject rule = modRule("team-a", "add-blue", 1, "{'remold.io/mode':'Shadow'}", ADD_BLUE);
        leader.changed("remold.io", "v1beta1", "modrules", rule);
        finalImpact("team-a", "add-blue");
        JsonObject written = parse(api.requests("PATCH", statusPath("team-a", "add-blue")).getFirst().body());
        // Its own status coming back, then another rule: scanned after it, so once that is done, the first was not due.
        leader.changed("remold.io", "v1beta1", "modrules", JsonTree.with(rule, "status",
                parse(api.requests("PATCH", statusPath("team-a", "add-blue")).getLast().body()).getJsonObject("status")));
        leader.changed("remold.io", "v1beta1", "modrules", modRule("team-a", "other", 1, "{}", REJECT_FORBIDDEN));
        finalImpact("team-a", "other");
        assertThat(tokens(DEPLOYMENTS), contains("", "2", "4", "", "2", "4"));

        leader.changed("remold.io", "v1beta1", "modrules", modRule("team-a", "add-blue", 1,
                "{'remold.io/mode':'Shadow','remold.io/impact-requested':'1733300000'}", ADD_BLUE));
        await(() -> api.requests("GET", DEPLOYMENTS).size() == 9
                && finalImpact("team-a", "add-blue").getString("requested", "").equals("1733300000"));
        assertThat(finalImpact("team-a", "add-blue").toString(),
                is(ADD_BLUE_IMPACT.replace("\"requested\":null", "\"requested\":\"1733300000\"")));
        assertThat(written.getJsonObject("status").getJsonObject("impact").getString("state"), is("Running"));
    }

    @Test
    void aRuleChangedWhileItIsScannedIsScannedAgainForItsNewGeneration() {
        ImpactScans leader = start(() -> true);
        String path = statusPath("team-a", "add-blue");
        api.on("PATCH", path, request -> {
            if (request.body().contains("\"continue\":\"2\"") && request.body().contains("\"observedGeneration\":1")) {
                leader.changed("remold.io", "v1beta1", "modrules", modRule("team-a", "add-blue", 2,
                        "{'remold.io/mode':'Shadow'}", ADD_BLUE));
            }
            return ok("{}");
        });
        leader.changed("remold.io", "v1beta1", "modrules",
                modRule("team-a", "add-blue", 1, "{'remold.io/mode':'Shadow'}", ADD_BLUE));

        await(() -> finalImpact("team-a", "add-blue").getInt("observedGeneration") == 2);
        assertThat(finalImpact("team-a", "add-blue").toString(),
                is(ADD_BLUE_IMPACT.replace("\"observedGeneration\":1", "\"observedGeneration\":2")));
        assertThat(listener.calls(), contains("began team-a/add-blue", "ended team-a/add-blue stopped",
                "began team-a/add-blue", "ended team-a/add-blue complete"));
    }

    /** Two rules with existing: Apply adding color=blue: shadow-apply in Shadow, then apply-blue enforced. */
    private void startShadowAndAppliedRules() {
        api.on("PATCH", statusPath("team-a", "apply-blue"), ok("{}"))
                .on("PATCH", statusPath("team-a", "shadow-apply"), ok("{}"));
        ImpactScans leader = start(() -> true);
        leader.changed("remold.io", "v1beta1", "modrules",
                modRule("team-a", "shadow-apply", 1, "{'remold.io/mode':'Shadow','remold.io/existing':'Apply'}",
                        ADD_BLUE));
        leader.changed("remold.io", "v1beta1", "modrules",
                modRule("team-a", "apply-blue", 1, "{'remold.io/existing':'Apply'}", ADD_BLUE));
    }

    @Test
    void anEnforcedRuleWithExistingApplyHandsItsChangesToTheWritesAndCountsTheirOutcomes() {
        writes.outcomes.put("d-3", new ExistingWrites.Outcome.Conflict("kubectl", ".metadata.labels.color",
                "owned by kubectl"));
        writes.outcomes.put("d-4", new ExistingWrites.Outcome.Refused("denied by a webhook"));
        startShadowAndAppliedRules();

        assertThat(finalImpact("team-a", "apply-blue").toString(), is("""
                {"observedGeneration":1,"requested":null,"state":"Complete","message":null,"evaluated":5,\
                "wouldChange":4,"wouldRefuse":0,"failed":0,"applied":2,"conflicts":1,"refused":1,"samples":[\
                {"apiVersion":"apps/v1","kind":"Deployment","namespace":"team-a","name":"d-0","verdict":"Changes",\
                "patch":"[{\\"op\\":\\"add\\",\\"path\\":\\"/metadata/labels/color\\",\\"value\\":\\"blue\\"}]"},\
                {"apiVersion":"apps/v1","kind":"Deployment","namespace":"team-a","name":"d-2","verdict":"Changes",\
                "patch":"[{\\"op\\":\\"add\\",\\"path\\":\\"/metadata/labels/color\\",\\"value\\":\\"blue\\"}]"},\
                {"apiVersion":"apps/v1","kind":"Deployment","namespace":"team-a","name":"d-3","verdict":"Conflict",\
                "manager":"kubectl","field":".metadata.labels.color","message":"owned by kubectl"}],\
                "startedAt":"2026-12-04T10:00:00Z","completedAt":"2026-12-04T10:00:00Z","progress":null}"""));
        assertThat("only the enforced rule's, each once", writes.applied(), contains("team-a/apply-blue d-0",
                "team-a/apply-blue d-2", "team-a/apply-blue d-3", "team-a/apply-blue d-4"));
        assertThat("a Shadow rule only records", finalImpact("team-a", "shadow-apply").isNull("applied"), is(true));
    }

    @Test
    void anAppliedRuleIsScannedAgainOnceTheRescanIntervalHasPassedAndAShadowRuleIsNot() {
        startShadowAndAppliedRules();
        finalImpact("team-a", "apply-blue");
        assertThat(writes.applied().size(), is(4));

        now.set(START.plus(SETTINGS.rescanInterval()));
        await(() -> writes.applied().size() == 8);
        assertThat(finalImpact("team-a", "apply-blue").getString("completedAt"), is("2026-12-04T10:10:00Z"));
        assertThat("each rule scanned twice, one walk each, the applied one walking twice each time",
                api.requests("GET", DEPLOYMENTS).size(), is(3 * (1 + 2 + 2)));
    }

    /**
     * A Gatekeeper mutator is cluster-scoped: it lists every namespace. Its CRD is Gatekeeper's, whose status would
     * prune {@code impact}: the verdicts go to the sink and the listener only, and no status is written.
     */
    @Test
    void aRuleOfAnotherFamilyIsScannedIntoTheSinkWithoutAStatus() {
        start(() -> true).changed("mutations.gatekeeper.sh", "v1", "assignmetadata", parse(json("""
                {'apiVersion':'mutations.gatekeeper.sh/v1','kind':'AssignMetadata','metadata':{'name':'color',
                 'generation':1},'spec':{'match':{'scope':'Namespaced','kinds':[{'apiGroups':['apps'],
                 'kinds':['Deployment']}]},'location':'metadata.labels.color',
                 'parameters':{'assign':{'value':'blue'}}}}""")));

        await(() -> listener.calls().size() == 2);
        assertThat(listener.calls().getLast(), endsWith(" complete"));
        assertThat(tally.impacts().getFirst().total(), is(new ImpactTally.Counts(5, 4, 0, 0)));
        assertThat(lists(), contains(ALL_DEPLOYMENTS, ALL_DEPLOYMENTS, ALL_DEPLOYMENTS));
        assertThat(api.requests().stream().filter(r -> r.method().equals("PATCH")).toList(), empty());
    }

    /**
     * The server would not run a tenant's JavaScript (tenant-scripts none): a ModRule of type Script in team-a is
     * not in force, and its scan does not run it either.
     */
    @Test
    void aRuleTheServerRefusesIsNotRunByItsScan() {
        api.on("PATCH", statusPath("team-a", "annotate"), ok("{}"));
        start(() -> true).changed("remold.io", "v1beta1", "modrules", modRule("team-a", "annotate", 1, "{}",
                "{'type':'Script','kinds':['deployments'],'js':'function jsa_mutate(op, obj) { return obj; }'}"));

        JsonObject impact = finalImpact("team-a", "annotate");
        assertThat(impact.getString("state"), is("Failed"));
        assertThat(impact.getString("message"), startsWith("the rule is not in force: ModRule team-a/annotate is"
                + " refused: JavaScript rules of namespace team-a are not enabled"));
        assertThat(lists(), empty());
        assertThat(listener.calls(), empty());
    }

    @Test
    void aKindTheServerMayNotListIsForbiddenNamingIt() {
        api.on("PATCH", statusPath("team-a", "add-blue"), ok("{}"))
                .on("GET", DEPLOYMENTS, status(403, "Forbidden"));
        start(() -> true).changed("remold.io", "v1beta1", "modrules",
                modRule("team-a", "add-blue", 1, "{}", ADD_BLUE));

        JsonObject impact = finalImpact("team-a", "add-blue");
        assertThat(impact.getString("state"), is("Forbidden"));
        assertThat(impact.getString("message"), is("the server may not list apps/v1 deployments in namespace"
                + " team-a: grant its ClusterRole list on them to scan them"));
        assertThat(listener.calls(), contains("began team-a/add-blue", "ended team-a/add-blue stopped"));
    }

    @Test
    void aFollowerDoesNotScan() {
        AtomicBoolean asked = new AtomicBoolean();
        start(() -> {
            asked.set(true);
            return false;
        }).changed("remold.io", "v1beta1", "modrules", modRule("team-a", "add-blue", 1, "{}", ADD_BLUE));
        await(asked::get);
        assertThat(lists(), empty());
        assertThat(api.requests("PATCH", statusPath("team-a", "add-blue")), empty());
    }
}

package io.remold.server.kube;

import io.remold.api.Reference;
import io.remold.engine.ReferenceException;
import io.remold.engine.ReferenceQuery;
import io.remold.engine.ReferenceResolver.Resolution;
import io.remold.server.rules.Requester;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.remold.server.Eventually.await;
import static io.remold.server.kube.FakeApiServer.ok;
import static io.remold.server.kube.FakeApiServer.status;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ClusterReferencesTest {
    private static final String CORE = json("{'kind':'APIResourceList','groupVersion':'v1','resources':["
            + "{'name':'configmaps','singularName':'','namespaced':true,'kind':'ConfigMap','verbs':['get','list','watch']},"
            + "{'name':'secrets','singularName':'','namespaced':true,'kind':'Secret','verbs':['get','list','watch']},"
            + "{'name':'namespaces','singularName':'','namespaced':false,'kind':'Namespace','verbs':['get','list','watch']},"
            + "{'name':'namespaces/status','singularName':'','namespaced':false,'kind':'Namespace','verbs':['get']}]}");
    private static final String CONFIG_MAPS = json("{'apiVersion':'v1','kind':'ConfigMapList','metadata':"
            + "{'resourceVersion':'5'},'items':["
            + "{'metadata':{'name':'settings','namespace':'shop','labels':{'team':'a'}},'data':{'tier':'gold'}},"
            + "{'metadata':{'name':'extra','namespace':'shop','labels':{'team':'b'}},'data':{'tier':'silver'}},"
            + "{'metadata':{'name':'secret-plans','namespace':'bank','labels':{'team':'a'}},'data':{'tier':'vault'}}]}");

    @Test
    void byNameAndBySelectorAreAnsweredFromTheCacheOfTheRulesNamespaceOnly() throws IOException {
        try (var api = configMapsServer(); var refs = references(api, List.of("configmaps"))) {
            refs.use(Set.of("v1 ConfigMap"));
            await(() -> refs.resolve(byName("shop", "settings")).value() != null);

            Resolution found = refs.resolve(byName("shop", "settings"));
            assertThat(found.value().asJsonObject().getJsonObject("data").getString("tier"), is("gold"));
            assertThat(found.source(), is("cache of configmaps"));
            assertThat("another namespace's ConfigMap is not seen", refs.resolve(byName("shop", "secret-plans"))
                    .value(), is(nullValue()));

            JsonArray teamA = refs.resolve(bySelector("shop", Map.of("team", "a"))).value().asJsonArray();
            assertThat(teamA.size(), is(1));
            assertThat(teamA.getJsonObject(0).getJsonObject("metadata").getString("name"), is("settings"));
            assertThat(refs.resolve(bySelector("shop", Map.of())).value().asJsonArray().size(), is(2));
            assertThat("only the references' kinds are listed", api.requests("GET", "/api/v1/secrets"), is(empty()));
        }
    }

    /** S3: a namespaced kind without a namespace (a template that rendered empty) finds nothing, never all. */
    @Test
    void anEmptyNamespaceFindsNothing() throws IOException {
        try (var api = configMapsServer(); var refs = references(api, List.of("configmaps"))) {
            refs.use(Set.of("v1 ConfigMap"));
            await(() -> refs.resolve(byName("shop", "settings")).value() != null);
            var clusterRule = new ReferenceQuery("remold-system/r", "team", "v1", "ConfigMap", "", null,
                    new Reference.Selector(Map.of("team", "a"), List.of()), true);
            assertThat(refs.resolve(clusterRule).value().asJsonArray(), is(empty()));
            assertThat(refs.resolve(byName("", "settings")).value(), is(nullValue()));
        }
    }

    @Test
    void aKindNoRuleReferencesAnyMoreIsNoLongerCached() throws IOException {
        try (var api = configMapsServer(); var refs = references(api, List.of("configmaps"))) {
            refs.use(Set.of("v1 ConfigMap"));
            await(() -> refs.cachedKinds().equals(Set.of("v1 ConfigMap")));
            refs.use(Set.of());
            await(() -> refs.cachedKinds().isEmpty());
            assertThat(refs.resolve(byName("shop", "settings")).source(), containsString("not cached yet"));
        }
    }

    @Test
    void aKindOutsideTheAllowListIsRefusedAtAdmissionOnceDiscoveryTellsAndAtEvaluationAlways() throws IOException {
        try (var api = configMapsServer(); var refs = references(api, List.of("configmaps"))) {
            assertThat(refs.refusal("apps/v1", "Deployment", true).orElseThrow(),
                    is("apps/v1 Deployment may not be referenced: the server reads only configmaps (--allow-references)"));
            // The core group is allowed: the kinds of the allowed groups are discovered when the server starts.
            await(() -> refs.refusal("v1", "Secret", true).isPresent());
            assertThat(refs.refusal("v1", "Secret", true).orElseThrow(), containsString("secrets may not be referenced"));
            assertThat(refs.refusal("v1", "ConfigMap", false).isPresent(), is(false));

            refs.use(Set.of("v1 Secret"));
            var refused = assertThrows(ReferenceException.class, () -> refs.resolve(new ReferenceQuery("r", "s", "v1",
                    "Secret", "shop", "token", null, false)));
            assertThat(refused.getMessage(), containsString("secrets may not be referenced"));
            assertThat(api.requests("GET", "/api/v1/secrets"), is(empty()));
        }
        try (var api = configMapsServer(); var none = references(api, List.of())) {
            assertThat(none.refusal("v1", "ConfigMap", true).orElseThrow(), containsString("reads only no resources"));
        }
    }

    @Test
    void aClusterScopedKindIsForRulesInTheSystemNamespaceOnly() throws IOException {
        try (var api = configMapsServer(); var refs = references(api, List.of("configmaps", "namespaces"))) {
            api.on("GET", "/api/v1/namespaces", ok(json("{'apiVersion':'v1','kind':'NamespaceList','metadata':"
                    + "{'resourceVersion':'3'},'items':[{'metadata':{'name':'shop','labels':{'tier':'gold'}}}]}")))
                    .onWatch("/api/v1/namespaces");
            refs.use(Set.of("v1 Namespace"));
            var systemRule = new ReferenceQuery("r", "ns", "v1", "Namespace", "shop", "shop", null, true);
            await(() -> refs.resolve(systemRule).value() != null);

            assertThat(refs.resolve(systemRule).value().asJsonObject().getJsonObject("metadata").getString("name"),
                    is("shop"));
            var namespaced = new ReferenceQuery("r", "ns", "v1", "Namespace", "shop", "shop", null, false);
            assertThat(assertThrows(ReferenceException.class, () -> refs.resolve(namespaced)).getMessage(),
                    is("namespaces are cluster-scoped: only rules in the system namespace may reference them"));
            assertThat(refs.refusal("v1", "Namespace", false).isPresent(), is(true));
            assertThat(refs.refusal("v1", "Namespace", true).isPresent(), is(false));
        }
    }

    @Test
    void aFailedDiscoveryIsTriedAgainAndTheReferenceIsMissingMeanwhile() throws IOException {
        try (var api = configMapsServer(); var refs = references(api, List.of("configmaps"))) {
            api.on("GET", "/api/v1", status(503, "ServiceUnavailable"), status(503, "ServiceUnavailable"),
                    status(503, "ServiceUnavailable"), ok(CORE));
            refs.use(Set.of("v1 ConfigMap"));
            await(() -> refs.resolve(byName("shop", "settings")).value() != null);
            assertThat(api.requests("GET", "/api/v1").size(), greaterThanOrEqualTo(4));
        }
    }

    private static final String REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    private static final Requester ALICE = new Requester("alice", List.of("team-a-devs", "system:authenticated"),
            "u-1", Map.of("scopes", List.of("s1")));

    private static FakeApiServer.Response review(boolean allowed) {
        return ok(json("{'apiVersion':'authorization.k8s.io/v1','kind':'SubjectAccessReview','spec':{},"
                + "'status':{'allowed':" + allowed + "}}"));
    }

    /** F12: a rule reads with the server's rights; its author must hold get and list of what it references. */
    @Test
    void anAuthorWhoMayNotReadTheReferencedKindIsRefusedNamingTheVerbAndResource() throws IOException {
        try (var api = configMapsServer().on("POST", REVIEWS, review(true), review(false));
             var refs = references(api, List.of("configmaps", "secrets"))) {
            assertThat(refs.unreadable(ALICE, "team-a", "v1", "Secret").orElseThrow(), is("user \"alice\" may not"
                    + " list secrets in namespace team-a: a rule may reference only what its author may read"));
            List<FakeApiServer.Request> asked = api.requests("POST", REVIEWS);
            assertThat(asked.size(), is(2));
            JsonObject get = Json.createReader(new StringReader(asked.get(0).body())).readObject().getJsonObject("spec");
            assertThat(get.getString("user"), is("alice"));
            assertThat(get.getString("uid"), is("u-1"));
            assertThat(get.getJsonArray("groups").getString(0), is("team-a-devs"));
            assertThat(get.getJsonObject("extra").getJsonArray("scopes").getString(0), is("s1"));
            JsonObject attributes = get.getJsonObject("resourceAttributes");
            assertThat(attributes.getString("verb") + " " + attributes.getString("group") + " "
                    + attributes.getString("resource") + " " + attributes.getString("namespace"), is("get  secrets team-a"));
            assertThat(Json.createReader(new StringReader(asked.get(1).body())).readObject().getJsonObject("spec")
                    .getJsonObject("resourceAttributes").getString("verb"), is("list"));
        }
    }

    @Test
    void anAuthorWhoMayReadIsAdmittedAndACluterWideRuleNeedsEveryNamespace() throws IOException {
        try (var api = configMapsServer().on("POST", REVIEWS, review(true));
             var refs = references(api, List.of("configmaps"))) {
            assertThat(refs.unreadable(ALICE, "", "v1", "ConfigMap").isPresent(), is(false));
            for (FakeApiServer.Request asked : api.requests("POST", REVIEWS)) {
                assertThat(Json.createReader(new StringReader(asked.body())).readObject().getJsonObject("spec")
                        .getJsonObject("resourceAttributes").containsKey("namespace"), is(false));
            }
        }
    }

    @Test
    void anUnansweredReviewOrAnUnknownKindIsARefusal() throws IOException {
        try (var api = configMapsServer().on("POST", REVIEWS, status(403, "Forbidden"));
             var refs = references(api, List.of("configmaps"))) {
            assertThat(refs.unreadable(ALICE, "team-a", "v1", "ConfigMap").orElseThrow(),
                    is("cannot check whether user \"alice\" may read v1 ConfigMap (HTTP 403)"));
            assertThat(refs.unreadable(ALICE, "team-a", "v1", "Gadget").orElseThrow(),
                    is("cannot check whether user \"alice\" may read v1 Gadget: the API server does not serve it"));
        }
    }

    static FakeApiServer configMapsServer() throws IOException {
        return new FakeApiServer().on("GET", "/api", ok(json("{'kind':'APIVersions','versions':['v1'],"
                        + "'serverAddressByClientCIDRs':[]}")))
                .on("GET", "/apis", ok(json("{'kind':'APIGroupList','groups':[{'name':'apps','versions':"
                        + "[{'groupVersion':'apps/v1','version':'v1'}]}]}")))
                .on("GET", "/api/v1", ok(CORE)).on("GET", "/api/v1/configmaps", ok(CONFIG_MAPS))
                .onWatch("/api/v1/configmaps");
    }

    static ClusterReferences references(FakeApiServer api, List<String> allowed) {
        return new ClusterReferences(new Informers(new KubeClients(api.client(), api.client())), allowed,
                Duration.ofMillis(10));
    }

    private static ReferenceQuery byName(String namespace, String name) {
        return new ReferenceQuery("shop/r", "settings", "v1", "ConfigMap", namespace, name, null, false);
    }

    private static ReferenceQuery bySelector(String namespace, Map<String, String> labels) {
        return new ReferenceQuery("shop/r", "team", "v1", "ConfigMap", namespace, null,
                new Reference.Selector(labels, List.of()), false);
    }

    private static String json(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }
}

package io.remold.server.kube;

import io.remold.cli.UsageException;
import io.remold.cli.preview.ObjectSource;
import io.remold.cli.preview.PreviewCommand;
import io.remold.engine.Family.TargetKind;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.remold.server.kube.FakeApiServer.ok;
import static io.remold.server.kube.FakeApiServer.status;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code preview}'s cluster against a loopback fake of the API server: discovery, pagination, 410 Gone, scope. */
class ClusterObjectSourceTest {
    private static final TargetKind DEPLOYMENT = new TargetKind(null, "Deployment", null);

    private static String json(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }

    /** Discovery of a cluster serving Pods, Namespaces (core) and Deployments (apps). */
    private static FakeApiServer discovery(FakeApiServer api) {
        return api.on("GET", "/api", ok(json("{'kind':'APIVersions','versions':['v1'],"
                        + "'serverAddressByClientCIDRs':[]}")))
                .on("GET", "/apis", ok(json("{'kind':'APIGroupList','apiVersion':'v1','groups':[{'name':'apps',"
                        + "'versions':[{'groupVersion':'apps/v1','version':'v1'}],"
                        + "'preferredVersion':{'groupVersion':'apps/v1','version':'v1'}}]}")))
                .on("GET", "/api/v1", ok(json("{'kind':'APIResourceList','groupVersion':'v1','resources':["
                        + "{'name':'pods','singularName':'','namespaced':true,'kind':'Pod','verbs':['get','list']},"
                        + "{'name':'pods/status','singularName':'','namespaced':true,'kind':'Pod','verbs':['get']},"
                        + "{'name':'namespaces','singularName':'','namespaced':false,'kind':'Namespace',"
                        + "'verbs':['get','list']}]}")))
                .on("GET", "/apis/apps/v1", ok(json("{'kind':'APIResourceList','groupVersion':'apps/v1',"
                        + "'resources':[{'name':'deployments','singularName':'','namespaced':true,"
                        + "'kind':'Deployment','verbs':['get','list']}]}")));
    }

    /** A page of Deployments as the API server lists them: no kind or apiVersion on the items. */
    private static FakeApiServer.Response page(String next, String... names) {
        var items = new ArrayList<String>();
        for (String name : names) {
            items.add("{'metadata':{'name':'" + name + "','namespace':'shop','managedFields':[{'manager':'k'}]}}");
        }
        return ok(json("{'apiVersion':'apps/v1','kind':'DeploymentList','metadata':{'resourceVersion':'9'"
                + (next == null ? "" : ",'continue':'" + next + "'") + "},'items':[" + String.join(",", items)
                + "]}"));
    }

    /** What a listing received: each start, and each page's names. */
    private static final class Recorded implements ObjectSource.Listing {
        final List<String> events = new ArrayList<>();
        final List<JsonObject> objects = new ArrayList<>();

        @Override
        public void start(String what) {
            events.add("start " + what);
        }

        @Override
        public void page(List<JsonObject> page) {
            objects.addAll(page);
            events.add("page " + page.stream().map(o -> o.getJsonObject("metadata").getString("name")).toList());
        }
    }

    @Test
    void pagesFollowTheContinueTokenAndAnExpiredListStartsOverOnce() throws IOException {
        try (var api = discovery(new FakeApiServer())) {
            api.on("GET", "/apis/apps/v1/deployments", page("c1", "a", "b"), status(410, "Expired"),
                    page("c2", "a", "b"), page(null, "c"));
            var recorded = new Recorded();

            new ClusterObjectSource(api.client(), 1000).list(Set.of(DEPLOYMENT), Set.of(), recorded);

            assertThat(recorded.events, equalTo(List.of("start apps/v1 Deployment", "page [a, b]",
                    "start apps/v1 Deployment", "page [a, b]", "page [c]")));
            assertThat(api.requests("GET", "/apis/apps/v1/deployments").stream().map(FakeApiServer.Request::query)
                    .toList(), equalTo(List.of("limit=500&watch=false", "continue=c1&limit=500&watch=false",
                    "limit=500&watch=false", "continue=c2&limit=500&watch=false")));
            JsonObject first = recorded.objects.getFirst();
            assertThat(first.getString("kind") + " " + first.getString("apiVersion"), is("Deployment apps/v1"));
            assertThat("managedFields are left out", first.getJsonObject("metadata").containsKey("managedFields"),
                    is(false));
        }
    }

    @Test
    void aListThatExpiresTwiceIsAnError() throws IOException {
        try (var api = discovery(new FakeApiServer())) {
            api.on("GET", "/apis/apps/v1/deployments", page("c1", "a"), status(410, "Expired"), page("c1", "a"),
                    status(410, "Expired"));
            var source = new ClusterObjectSource(api.client(), 1000);

            var e = assertThrows(UsageException.class, () -> source.list(Set.of(DEPLOYMENT), Set.of(),
                    new Recorded()));
            assertThat(e.getMessage(), is("cannot list deployments: HTTP 410"));
        }
    }

    @Test
    void namespacesLimitTheListsAndLeaveClusterScopedKindsOut() throws IOException {
        try (var api = discovery(new FakeApiServer())) {
            api.on("GET", "/api/v1/namespaces/shop/pods", ok(json("{'kind':'PodList','apiVersion':'v1',"
                    + "'metadata':{},'items':[{'metadata':{'name':'p','namespace':'shop'}}]}")));
            var recorded = new Recorded();

            new ClusterObjectSource(api.client(), 1000).list(Set.of(new TargetKind("", "Pod", null),
                    new TargetKind(null, "Namespace", null)), Set.of("shop"), recorded);

            assertThat(recorded.events, equalTo(List.of("start v1 Pod in shop", "page [p]")));
            assertThat(api.requests("GET", "/api/v1/namespaces").size(), is(0));
        }
    }

    @Test
    void aKindOfAnotherGroupIsNotListed() throws IOException {
        try (var api = discovery(new FakeApiServer())) {
            var recorded = new Recorded();
            new ClusterObjectSource(api.client(), 1000).list(Set.of(new TargetKind("extensions", "Deployment",
                    null)), Set.of(), recorded);
            assertThat(recorded.events, equalTo(List.of()));
        }
    }

    @Test
    void anUnreachableApiServerIsAnErrorSayingWhat() {
        var client = new io.kubernetes.client.openapi.ApiClient();
        client.setBasePath("http://127.0.0.1:1");
        var source = new ClusterObjectSource(client, 1000);

        var e = assertThrows(UsageException.class, () -> source.list(Set.of(DEPLOYMENT), Set.of(), new Recorded()));
        assertThat(e.getMessage(), startsWith("cannot discover the cluster's kinds: "));
        var read = assertThrows(UsageException.class, () -> source.namespace("shop"));
        assertThat(read.getMessage(), startsWith("cannot read namespace shop: "));
    }

    @Test
    void namespacesAreReadOnceAndAMissingOneIsNull() throws IOException {
        try (var api = new FakeApiServer()) {
            api.on("GET", "/api/v1/namespaces/shop", ok(json("{'kind':'Namespace','apiVersion':'v1',"
                    + "'metadata':{'name':'shop','labels':{'team':'shop'}}}")));
            var source = new ClusterObjectSource(api.client(), 1000);

            assertThat(source.namespace("shop").getJsonObject("metadata").getJsonObject("labels")
                    .getString("team"), is("shop"));
            assertThat(source.namespace("shop").getString("kind"), is("Namespace"));
            assertThat(source.namespace("gone"), is(nullValue()));
            assertThat(api.requests("GET", "/api/v1/namespaces/shop").size(), is(1));
        }
    }

    @Test
    void previewReadsTheClusterOfAKubeconfigContext(@TempDir Path dir) throws IOException {
        try (var api = discovery(new FakeApiServer())) {
            api.on("GET", "/apis/apps/v1/deployments", page(null, "web"));
            api.on("GET", "/api/v1/namespaces/shop", ok(json("{'kind':'Namespace','apiVersion':'v1',"
                    + "'metadata':{'name':'shop','labels':{'team':'shop'}}}")));
            Path kubeconfig = dir.resolve("kubeconfig");
            Files.writeString(kubeconfig, """
                    apiVersion: v1
                    kind: Config
                    clusters:
                      - name: fake
                        cluster:
                          server: %s
                      - name: elsewhere
                        cluster:
                          server: http://127.0.0.1:1
                    users:
                      - name: nobody
                        user: {}
                    contexts:
                      - name: fake
                        context: {cluster: fake, user: nobody}
                      - name: elsewhere
                        context: {cluster: elsewhere, user: nobody}
                    current-context: elsewhere
                    """.formatted(api.client().getBasePath()));
            Path rules = dir.resolve("rule.yaml");
            Files.writeString(rules, """
                    apiVersion: remold.io/v1beta1
                    kind: ModRule
                    metadata:
                      name: team-label
                      namespace: shop
                    spec:
                      type: Patch
                      match:
                        - select: '$.kind'
                          matchValue: Deployment
                      patch:
                        - op: add
                          path: /metadata/labels/team
                          value: '{{Namespace}}'
                    """);
            var out = new ByteArrayOutputStream();
            var err = new ByteArrayOutputStream();

            int exit = PreviewCommand.run(new String[] {"--rules", rules.toString(), "--kubeconfig",
                    kubeconfig.toString(), "--context", "fake"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8), ClusterObjectSource::connect);

            assertThat(err.toString(StandardCharsets.UTF_8), exit, is(0));
            assertThat(out.toString(StandardCharsets.UTF_8), equalTo(String.join(System.lineSeparator(),
                    "shop/team-label (ModRule, Enforce): 1 of 1 Deployment (apps/v1) would change, 0 would be"
                            + " refused, 0 failed",
                    "  Deployment shop/web (apps/v1) would change:",
                    "    {\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"team\":\"shop\"}}", "")));
        }
    }
}

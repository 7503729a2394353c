package io.remold.server.kube;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static io.remold.server.kube.FakeApiServer.ok;
import static io.remold.server.kube.FakeApiServer.status;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

class DynamicListerWatcherTest {
    @Test
    void listedItemsGetTheListsKindAndApiVersionUnlessTheyHaveTheirOwn() throws IOException, ApiException {
        try (var api = new FakeApiServer()) {
            api.on("GET", "/api/v1/namespaces", ok(("{'apiVersion':'v1','kind':'NamespaceList','metadata':"
                    + "{'resourceVersion':'7'},'items':[{'metadata':{'name':'a'}},"
                    + "{'apiVersion':'v2','kind':'Other','metadata':{'name':'b'}}]}").replace('\'', '"')));
            var lister = new DynamicListerWatcher("", "v1", "namespaces", api.client(), api.client());

            var list = lister.list(new CallGeneratorParams(false, "0", 30));

            assertThat(list.getMetadata().getResourceVersion(), is("7"));
            assertThat(list.getItems().stream().map(DynamicKubernetesObject::getKind).toList(),
                    contains("Namespace", "Other"));
            assertThat(list.getItems().stream().map(DynamicKubernetesObject::getApiVersion).toList(),
                    contains("v1", "v2"));
            var first = api.requests().getFirst();
            assertThat("resourceVersion 0 would be answered whole from the watch cache",
                    first.parameter("resourceVersion"), is(nullValue()));
            assertThat(first.parameter("limit"), is("500"));
        }
    }

    @Test
    void listsPageByPageAndKeepsEachObjectAsItsPageArrives() throws IOException, ApiException {
        try (var api = new FakeApiServer()) {
            api.on("GET", "/api/v1/configmaps", request -> {
                String token = request.parameter("continue");
                int start = token == null ? 0 : Integer.parseInt(token);
                var items = new StringBuilder();
                for (int i = start; i < Math.min(start + Integer.parseInt(request.parameter("limit")), 1_203); i++) {
                    items.append(i == start ? "" : ",").append("{'metadata':{'name':'cm-").append(i)
                            .append("','namespace':'n','managedFields':[{'manager':'m'}]},'data':{'k':'v'}}");
                }
                String next = start + 500 < 1_203 ? String.valueOf(start + 500) : "";
                return ok(("{'apiVersion':'v1','kind':'ConfigMapList','metadata':{'resourceVersion':'42',"
                        + "'continue':'" + next + "'},'items':[" + items + "]}").replace('\'', '"'));
            });
            var lister = new DynamicListerWatcher("", "v1", "configmaps", api.client(), api.client());

            var list = lister.list(new CallGeneratorParams(false, "0", 30));

            assertThat(list.getItems(), hasSize(1_203));
            assertThat(list.getItems().get(1_202).getMetadata().getName(), is("cm-1202"));
            assertThat(list.getItems().stream().allMatch(item -> item instanceof Manifests.Kept), is(true));
            assertThat(Manifests.toJson(list.getItems().get(700)).getJsonObject("metadata").containsKey(
                    "managedFields"), is(false));
            assertThat(list.getMetadata().getResourceVersion(), is("42"));
            assertThat(list.getMetadata().getContinue(), is(nullValue()));
            assertThat(api.requests().stream().map(r -> r.parameter("continue")).toList(),
                    contains(nullValue(), is("500"), is("1000")));
            assertThat("a continued page names no resourceVersion",
                    api.requests().stream().skip(1).allMatch(r -> r.parameter("resourceVersion") == null), is(true));
        }
    }

    @Test
    void aGivenResourceVersionIsKeptForTheFirstPage() throws IOException, ApiException {
        try (var api = new FakeApiServer()) {
            api.on("GET", "/api/v1/nodes", ok(("{'apiVersion':'v1','kind':'NodeList','metadata':"
                    + "{'resourceVersion':'9'},'items':[]}").replace('\'', '"')));
            var lister = new DynamicListerWatcher("", "v1", "nodes", api.client(), api.client());

            lister.list(new CallGeneratorParams(false, "8", 30));

            assertThat(api.requests().getFirst().parameter("resourceVersion"), is("8"));
        }
    }

    @Test
    void listedItemsAreLetGoOnceTheReflectorWatches() throws IOException, ApiException {
        try (var api = new FakeApiServer()) {
            api.on("GET", "/api/v1/nodes", ok(("{'apiVersion':'v1','kind':'NodeList','metadata':"
                    + "{'resourceVersion':'7'},'items':[{'metadata':{'name':'a'}}]}").replace('\'', '"')))
                    .onWatch("/api/v1/nodes");
            var lister = new DynamicListerWatcher("", "v1", "nodes", api.client(), api.client());

            var list = lister.list(new CallGeneratorParams(false, "0", 30));
            var items = list.getItems();
            assertThat(items.stream().map(item -> item.getMetadata().getName()).toList(), contains("a"));
            assertThat("the raw list keeps no items", list.getRaw().has("items"), is(false));

            lister.watch(new CallGeneratorParams(true, "7", 30)).close();
            assertThat(items, is(empty()));
            assertThat(list.getMetadata().getResourceVersion(), is("7"));
        }
    }

    @Test
    void refusedListCarriesTheHttpCode() throws IOException {
        try (var api = new FakeApiServer()) {
            api.on("GET", "/apis/remold.io/v1beta1/modrules", status(403, "Forbidden"));
            var lister = new DynamicListerWatcher("remold.io", "v1beta1", "modrules", api.client(), api.client());

            var refused = assertThrows(ApiException.class, () -> lister.list(new CallGeneratorParams(false, "", 30)));
            assertThat(refused.getCode(), is(403));
        }
    }
}

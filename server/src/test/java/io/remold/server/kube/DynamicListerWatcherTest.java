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
            assertThat(api.requests().getFirst().query(), is("resourceVersion=0&timeoutSeconds=30&watch=false"));
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

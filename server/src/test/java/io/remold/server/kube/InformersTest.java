package io.remold.server.kube;

import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.remold.server.Eventually.await;
import static io.remold.server.kube.FakeApiServer.event;
import static io.remold.server.kube.FakeApiServer.ok;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

/** The shared informers against a loopback fake of the API server, which sends watch events to the first watch only. */
class InformersTest {
    private static final String NAMESPACES = "/api/v1/namespaces";
    private static final Informers.Resource NAMESPACE = new Informers.Resource("", "v1", "namespaces");

    private final FakeApiServer api = new FakeApiServer();
    private final Informers informers = new Informers(new KubeClients(api.client(), api.client()));

    InformersTest() throws IOException {
        api.on("GET", NAMESPACES, ok(("{'apiVersion':'v1','kind':'NamespaceList','metadata':{'resourceVersion':'10'},"
                + "'items':[{'metadata':{'name':'team-a','resourceVersion':'5'}}]}").replace('\'', '"')));
    }

    @AfterEach
    void stop() {
        informers.close();
        api.close();
    }

    /** The names of the namespaces a handler was told of and not told gone. */
    private static final class Names implements ResourceEventHandler<DynamicKubernetesObject> {
        final Set<String> names = ConcurrentHashMap.newKeySet();

        @Override
        public void onAdd(DynamicKubernetesObject object) {
            names.add(object.getMetadata().getName());
        }

        @Override
        public void onUpdate(DynamicKubernetesObject oldObject, DynamicKubernetesObject newObject) {
            onAdd(newObject);
        }

        @Override
        public void onDelete(DynamicKubernetesObject object, boolean finalStateUnknown) {
            names.remove(object.getMetadata().getName());
        }
    }

    private long lists() {
        return api.requests("GET", NAMESPACES).stream()
                .filter(r -> r.query() == null || !r.query().contains("watch=true")).count();
    }

    @Test
    void twoConsumersOfOneResourceShareOneInformerAndBothGetItsObjectsAndEvents() {
        api.onWatch(NAMESPACES, event("ADDED", "{'apiVersion':'v1','kind':'Namespace',"
                + "'metadata':{'name':'team-b','resourceVersion':'11'}}"));
        var first = new Names();
        var second = new Names();

        try (var a = informers.acquire(NAMESPACE, first)) {
            await(() -> first.names.contains("team-b"));
            try (var b = informers.acquire(NAMESPACE, second)) {
                assertThat("the store's objects, handed to the late consumer", second.names,
                        containsInAnyOrder("team-a", "team-b"));
                assertThat(informers.running(), is(1));
                assertThat("listed once", lists(), is(1L));
                assertThat(b.store().list(), hasSize(2));
            }
        }
    }

    @Test
    void theLastReleaseStopsTheInformerAndTheNextAcquireListsAgain() {
        var reader = informers.acquire(NAMESPACE);
        var handled = new Names();
        var hold = informers.acquire(NAMESPACE, handled);
        await(() -> handled.names.contains("team-a"));

        hold.close();
        assertThat("another consumer still holds it", informers.running(), is(1));
        reader.close();
        assertThat(informers.running(), is(0));

        var again = new Names();
        try (var hold2 = informers.acquire(NAMESPACE, again)) {
            await(() -> again.names.contains("team-a"));
            assertThat("a new informer listed", lists(), is(2L));
        }
    }
}

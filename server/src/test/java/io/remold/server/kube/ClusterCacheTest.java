package io.remold.server.kube;

import jakarta.json.JsonObject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static io.remold.server.kube.Objects.object;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

class ClusterCacheTest {
    private static String namespace(String name, String labels) {
        return "{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'" + name + "','labels':" + labels
                + "}}";
    }

    @ParameterizedTest(name = "{0} compat={1} -> ignored={2}")
    @CsvSource(delimiter = '|', value = {
        "{'admission.remold.io/ignore':'true'}   | false | true",
        "{'admission.remold.io/ignore':'false'}  | false | false",
        "{'admission.remold.io/ignore':'yes'}    | false | false",
        "{'admission.kubemod.io/ignore':'true'}  | false | false",
        "{'admission.kubemod.io/ignore':'true'}  | true  | true",
        "{'admission.remold.io/ignore':'true'}   | true  | true",
        "{}                                      | true  | false",
    })
    void ignoreLabel(String labels, boolean kubemodCompat, boolean ignored) {
        var cache = new ClusterCache(kubemodCompat);
        cache.namespaceHandler().onAdd(object(namespace("team-a", labels)));
        assertThat(cache.ignored("team-a"), is(ignored));
    }

    @Test
    void namespaceFollowsUpdatesAndDeletes() {
        var cache = new ClusterCache(false);
        var handler = cache.namespaceHandler();
        var plain = object(namespace("team-a", "{'color':'blue'}"));
        handler.onAdd(plain);
        assertThat(cache.ignored("team-a"), is(false));
        assertThat(label(cache.namespace("team-a")), is("blue"));

        var labelled = object(namespace("team-a", "{'color':'red','admission.remold.io/ignore':'true'}"));
        handler.onUpdate(plain, labelled);
        assertThat(cache.ignored("team-a"), is(true));
        assertThat(label(cache.namespace("team-a")), is("red"));

        handler.onDelete(labelled, false);
        assertThat(cache.namespace("team-a"), is(Optional.empty()));
        assertThat(cache.ignored("team-a"), is(false));
        assertThat(cache.ignored(null), is(false));
    }

    @Test
    void nodeManifestIsServedWhole() {
        var cache = new ClusterCache(false);
        var node = object("{'apiVersion':'v1','kind':'Node','metadata':{'name':'node-1','labels':"
                + "{'topology.kubernetes.io/zone':'z1'}},"
                + "'status':{'nodeInfo':{'architecture':'amd64'}}}");
        cache.nodeHandler().onAdd(node);

        JsonObject manifest = cache.node("node-1").orElseThrow().asJsonObject();
        assertThat(manifest.getJsonObject("metadata").toString(),
                is("{\"name\":\"node-1\",\"labels\":{\"topology.kubernetes.io/zone\":\"z1\"}}"));
        assertThat(manifest.getJsonObject("status").getJsonObject("nodeInfo").getString("architecture"), is("amd64"));
        assertThat(cache.node("node-2"), is(Optional.empty()));

        cache.nodeHandler().onDelete(node, true);
        assertThat(cache.node("node-1"), is(Optional.empty()));
    }

    private static String label(Optional<jakarta.json.JsonValue> namespace) {
        return namespace.orElseThrow().asJsonObject().getJsonObject("metadata").getJsonObject("labels")
                .getString("color");
    }
}

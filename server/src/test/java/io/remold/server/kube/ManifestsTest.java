package io.remold.server.kube;

import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import org.junit.jupiter.api.Test;

import static io.remold.server.kube.Objects.object;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.sameInstance;

class ManifestsTest {
    private static final String NODE = "{'apiVersion':'v1','kind':'Node','metadata':{'name':'node-1','uid':'u1',"
            + "'resourceVersion':'7','labels':{'zone':'z1'},'managedFields':[{'manager':'kubelet'}]},"
            + "'status':{'images':[{'names':['app:v1']}]}}";

    @Test
    void informersKeepTheManifestWithoutManagedFieldsAndAsGsonOnlyTheIdentity() {
        var kept = (DynamicKubernetesObject) Manifests.kept(object(NODE));

        assertThat(kept.getRaw().toString(), is(("{'apiVersion':'v1','kind':'Node','metadata':{'name':'node-1',"
                + "'uid':'u1','resourceVersion':'7'}}").replace('\'', '"')));
        assertThat(kept.getMetadata().getResourceVersion(), is("7"));
        assertThat(Manifests.toJson(kept).toString(), is(("{'apiVersion':'v1','kind':'Node','metadata':"
                + "{'name':'node-1','uid':'u1','resourceVersion':'7','labels':{'zone':'z1'}},"
                + "'status':{'images':[{'names':['app:v1']}]}}").replace('\'', '"')));
        assertThat("a resync hands back a kept object", Manifests.kept(kept), is(sameInstance(kept)));
    }

    @Test
    void otherObjectsAreConvertedWhole() {
        assertThat(Manifests.toJson(object(NODE)).getJsonObject("metadata").containsKey("managedFields"), is(true));
    }
}

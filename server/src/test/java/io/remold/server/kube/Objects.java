package io.remold.server.kube;

import com.google.gson.JsonParser;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;

/** Builds informer objects from JSON text, as the informer would deliver them. */
final class Objects {
    private Objects() {
    }

    static DynamicKubernetesObject object(String json) {
        return new DynamicKubernetesObject(JsonParser.parseString(json.replace('\'', '"')).getAsJsonObject());
    }

    /** A remold.io ModRule in namespace team-a; {@code spec} and {@code status} are JSON (single quotes allowed). */
    static String modRule(String name, long generation, String spec, String status) {
        return "{'apiVersion':'remold.io/v1beta1','kind':'ModRule','metadata':{'name':'" + name
                + "','namespace':'team-a','generation':" + generation + ",'resourceVersion':'" + (100 + generation)
                + "'},'spec':" + spec + (status == null ? "" : ",'status':" + status) + "}";
    }

    static final String PATCH_SPEC = "{'type':'Patch','match':[{'select':'$.kind','matchValue':'Pod'}],"
            + "'patch':[{'op':'add','path':'/metadata/labels/color','value':'blue'}]}";
}

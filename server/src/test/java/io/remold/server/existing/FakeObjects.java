package io.remold.server.existing;

import io.remold.server.kube.FakeApiServer;
import io.remold.server.kube.FakeApiServer.Request;
import io.remold.server.kube.FakeApiServer.Response;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.remold.server.kube.FakeApiServer.ok;
import static io.remold.server.kube.FakeApiServer.status;

/**
 * The objects of one resource on the fake API server, listed as the API server lists them: {@code limit} items per
 * page, a {@code continue} token for the rest (here the index of the next item), items without kind and apiVersion.
 * A token in {@link #expireOnce} is answered 410 Gone the first time it is used.
 */
final class FakeObjects {
    /** The discovery documents of a cluster serving v1 namespaces, services and secrets, and apps/v1 deployments. */
    static void serveDiscovery(FakeApiServer api) {
        api.on("GET", "/api", ok(json("{'kind':'APIVersions','versions':['v1'],'serverAddressByClientCIDRs':[]}")))
                .on("GET", "/api/v1", ok(json("{'kind':'APIResourceList','groupVersion':'v1','resources':["
                        + "{'name':'namespaces','singularName':'namespace','namespaced':false,'kind':'Namespace',"
                        + "'verbs':['list']},{'name':'services','singularName':'service','namespaced':true,"
                        + "'kind':'Service','verbs':['list']},{'name':'secrets','singularName':'secret',"
                        + "'namespaced':true,'kind':'Secret','verbs':['list']}]}")))
                .on("GET", "/apis", ok(json("{'kind':'APIGroupList','apiVersion':'v1','groups':[{'name':'apps',"
                        + "'versions':[{'groupVersion':'apps/v1','version':'v1'}],"
                        + "'preferredVersion':{'groupVersion':'apps/v1','version':'v1'}}]}")))
                .on("GET", "/apis/apps/v1", ok(json("{'kind':'APIResourceList','apiVersion':'v1',"
                        + "'groupVersion':'apps/v1','resources':[{'name':'deployments','singularName':'deployment',"
                        + "'namespaced':true,'kind':'Deployment','verbs':['list']},{'name':'deployments/status',"
                        + "'singularName':'','namespaced':true,'kind':'Deployment','verbs':['get']}]}")));
    }

    static String json(String singleQuoted) {
        return singleQuoted.replace('\'', '"');
    }

    private final String apiVersion;
    private final String listKind;
    private final List<String> items;
    final Set<String> expireOnce = new HashSet<>();

    FakeObjects(String apiVersion, String listKind, List<String> items) {
        this.apiVersion = apiVersion;
        this.listKind = listKind;
        this.items = List.copyOf(items);
    }

    /** Deployments {@code d-0}... in {@code namespace}, each with the given labels (JSON, single quotes). */
    static FakeObjects deployments(String namespace, String... labels) {
        var items = new ArrayList<String>();
        for (int i = 0; i < labels.length; i++) {
            items.add(json("{'metadata':{'name':'d-" + i + "','namespace':'" + namespace + "','labels':" + labels[i]
                    + ",'managedFields':[{'manager':'kubectl'}]},'spec':{'replicas':1}}"));
        }
        return new FakeObjects("apps/v1", "DeploymentList", items);
    }

    synchronized Response list(Request request) {
        String token = request.parameter("continue");
        if (token != null && expireOnce.remove(token)) {
            return status(410, "Expired");
        }
        int from = token == null ? 0 : Integer.parseInt(token);
        String limit = request.parameter("limit");
        int to = limit == null ? items.size() : Math.min(items.size(), from + Integer.parseInt(limit));
        String next = to < items.size() ? String.valueOf(to) : "";
        return ok("{\"apiVersion\":\"" + apiVersion + "\",\"kind\":\"" + listKind + "\",\"metadata\":"
                + "{\"resourceVersion\":\"7\",\"continue\":\"" + next + "\"},\"items\":["
                + String.join(",", items.subList(from, to)) + "]}");
    }
}

package io.remold.server.kube;

import com.sun.net.httpserver.HttpServer;
import io.remold.api.AdmissionOperation;
import io.remold.api.YamlJson;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Family;
import io.remold.api.AllowedUrls;
import io.remold.kinitiras.KinitirasFamily;
import io.remold.kinitiras.KinitirasOptions;
import io.remold.rules.Snapshot;
import io.remold.server.rules.RuleStore;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static io.remold.server.Eventually.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;

/**
 * kinitiras policies' references in the server: the kinds their {@code k8s} references read start the cluster's
 * caches as ModRules' {@code spec.references} do, within {@code --allow-references}; their {@code http} references
 * reach a real service on loopback under {@code --allow-http-ref}, and a policy whose URL is under no allowed prefix
 * is not in force.
 */
class KinitirasReferencesTest {
    private static final String POLICY = """
            apiVersion: policy.kcloudlabs.io/v1alpha1
            kind: %s
            metadata: {name: %s, namespace: shop}
            spec:
              resourceSelectors: [{apiVersion: v1, kind: Pod}]
              overrideRules:
              - targetOperations: [CREATE]
                overriders:
                  template:
                    type: annotations
                    operation: replace
                    path: tier
                    valueRef: %s
            """;
    private static final JsonObject POD = (JsonObject) YamlJson.parse(
            "{apiVersion: v1, kind: Pod, metadata: {name: web, namespace: shop}}", "pod").getFirst();

    private static JsonObject podWithService(String service) {
        return (JsonObject) YamlJson.parse("{apiVersion: v1, kind: Pod, metadata: {name: web, namespace: shop,"
                + " annotations: {svc: '" + service + "'}}}", "pod").getFirst();
    }

    /** Puts the manifest as a policy under {@code key}, as the cluster's rule sources do; why it was refused. */
    private static Optional<String> put(RuleStore store, String key, String manifest) {
        return put(store, kinitiras(store), key, manifest);
    }

    private static <R> Optional<String> put(RuleStore store, Family<R> family, String key, String manifest) {
        return store.put(key, family, family.parse((JsonObject) YamlJson.parse(manifest, key).getFirst()));
    }

    private static Family<?> kinitiras(RuleStore store) {
        return store.families().stream().filter(f -> f.family().equals(KinitirasFamily.FAMILY)).findFirst()
                .orElseThrow();
    }

    private static JsonValue tier(RuleStore store) {
        return tier(store, POD);
    }

    private static JsonValue tier(RuleStore store, JsonObject object) {
        JsonObject pod = mutate(store, object).result().asJsonObject();
        return pod.getJsonObject("metadata").getOrDefault("annotations", JsonValue.EMPTY_JSON_OBJECT).asJsonObject()
                .getOrDefault("tier", JsonValue.NULL);
    }

    private static Decision mutate(RuleStore store, JsonObject object) {
        return store.engine().mutate(new AdmissionRequest(AdmissionOperation.CREATE, "shop", object, null, null, null,
                false));
    }

    @Test
    void theKindsOfK8sReferencesAreCachedWithinAllowReferencesAndAnotherKindKeepsThePolicyOutOfForce()
            throws IOException {
        try (var api = ClusterReferencesTest.configMapsServer();
             var refs = ClusterReferencesTest.references(api, List.of("configmaps"));
             var store = new RuleStore("remold-system")) {
            var referenced = new CopyOnWriteArrayList<String>();
            store.references(refs);
            store.onSnapshot(snapshot -> referenced.addAll(snapshot.referencedKinds()));
            store.onSnapshot(snapshot -> refs.use(snapshot.referencedKinds()));
            String configMap = "{from: k8s, path: /data/tier, k8s: {apiVersion: v1, kind: ConfigMap, namespace: shop,"
                    + " name: settings}}";
            assertThat(put(store, "cop/tier", POLICY.formatted("ClusterOverridePolicy", "tier", configMap)),
                    is(Optional.empty()));
            store.synced();
            assertThat(referenced, hasItem("v1 ConfigMap"));
            await(() -> refs.cachedKinds().contains("v1 ConfigMap"));
            await(() -> tier(store).equals(jakarta.json.Json.createValue("gold")));

            // Secrets are of an allowed group but not allowed: known once the server discovered the core kinds.
            await(() -> refs.refusal("v1", "Secret", false).isPresent());
            String secret = "{from: k8s, path: /data/token, k8s: {apiVersion: v1, kind: Secret, name: token}}";
            Optional<String> refused = put(store, "op/shop/secret", POLICY.formatted("OverridePolicy", "secret",
                    secret));
            assertThat(refused.orElseThrow(), is("OverridePolicy/shop/secret reads v1 Secret: secrets may not be"
                    + " referenced: the server reads only configmaps (--allow-references)"));
            store.batch(sink -> { });
            assertThat("not in force", store.engine().stageRuleCount(), is(1));
        }
    }

    @Test
    void anHttpReferenceUnderAnAllowedPrefixCallsTheServiceAndOneUnderNoneIsNotInForce() throws IOException {
        var calls = new AtomicInteger();
        HttpServer service = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        service.createContext("/", exchange -> {
            calls.incrementAndGet();
            byte[] body = ("{\"tier\":\"" + exchange.getRequestURI().getRawQuery() + "\"}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        service.start();
        String base = "http://127.0.0.1:" + service.getAddress().getPort();
        var snapshots = new CopyOnWriteArrayList<Snapshot>();
        try (var store = new RuleStore("remold-system", AllowedUrls.parse(List.of(base + "/api")),
                KinitirasOptions.DEFAULTS)) {
            store.onSnapshot(snapshots::add);
            String http = "{from: http, path: /body/tier, http: {url: '%s', method: GET,"
                    + " params: {pod: '{{metadata.name}}'}}}";
            put(store, "op/shop/allowed", POLICY.formatted("OverridePolicy", "allowed",
                    http.formatted(base + "/api/tiers")));
            put(store, "op/shop/elsewhere", POLICY.formatted("OverridePolicy", "elsewhere",
                    http.formatted(base + "/apix/tiers")));
            store.synced();

            assertThat(tier(store), is(jakarta.json.Json.createValue("pod=web")));
            assertThat(calls.get(), is(1));
            assertThat(snapshots.getLast().disabled().get("op/shop/elsewhere"), containsString(
                    "spec.overrideRules[0].overriders.template.valueRef.http.url: http valueRef " + base
                            + "/apix/tiers: not under a URL prefix the server allows (--allow-http-ref " + base
                            + "/api)"));
            assertThat(snapshots.getLast().disabled().size(), is(1));

            // A host from the object can be checked only once the object is known: at every call.
            put(store, "op/shop/allowed", POLICY.formatted("OverridePolicy", "allowed",
                    http.formatted("http://{{metadata.annotations.svc}}/api/tiers")));
            store.batch(sink -> { });
            assertThat(snapshots.getLast().disabled().size(), is(1));
            assertThat(tier(store, podWithService(base.substring("http://".length()))),
                    is(jakarta.json.Json.createValue("pod=web")));
            Decision elsewhere = mutate(store, podWithService("evil.example"));
            assertThat(elsewhere.allowed(), is(false));
            assertThat(elsewhere.rejections().toString(), containsString("http valueRef"
                    + " http://evil.example/api/tiers?pod=web: not under a URL prefix the server allows"));
            assertThat(calls.get(), is(2));
        } finally {
            service.stop(0);
        }
    }
}

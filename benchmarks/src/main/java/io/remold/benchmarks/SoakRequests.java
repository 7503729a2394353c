package io.remold.benchmarks;

import io.remold.api.AdmissionOperation;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;

/**
 * The AdmissionReviews of the soak ({@link Soak}): Pods in the fixed and the churned namespaces of
 * {@link SoakCluster}, on a churned node or none, with images the rules look at; CREATE and UPDATE; to /mutate
 * (three in four) and /validate. Each knows the answer the engine gives for it in a {@link SoakCluster.State}.
 */
final class SoakRequests {
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final List<String> IMAGES = List.of("docker.io/library/nginx:1.27", "docker.io/library/redis:latest",
            "registry.example.com/shop/api:2.1", "busybox", "quay.io/team/tool:latest", "docker.io/team/app");

    /** One review: where it goes, its bytes, and what the engine needs to decide it. */
    record Review(String path, byte[] body, AdmissionOperation operation, String namespace, JsonValue object,
                  JsonValue oldObject, String nodeName) {
        boolean mutating() {
            return path.equals("/mutate");
        }

        /** The answer the server should give in {@code state}, in the terms {@link #answer(byte[])} reads. */
        Answer expected(SoakCluster.State state) {
            if (state.ignored(namespace)) {
                return new Answer(true, "", null);
            }
            var request = new AdmissionRequest(operation, namespace, object, oldObject,
                    state.namespaces().get(namespace), nodeName == null ? null : state.nodes().get(nodeName), false);
            if (mutating()) {
                Decision decision = state.engine().mutate(request);
                return new Answer(true, decision.patch().isEmpty() ? "" : decision.patch().toString(), null);
            }
            Decision decision = state.engine().validate(request);
            return decision.allowed() ? new Answer(true, "", null) : new Answer(false, "", decision.rejectionMessage());
        }
    }

    /** What an answer decides: allowed, the JSON Patch as text ("" for none), the rejection message. */
    record Answer(boolean allowed, String patch, String message) {
    }

    private SoakRequests() {
    }

    /** The decision in a server's AdmissionReview response body. */
    static Answer answer(byte[] body) {
        JsonObject response = ((JsonObject) JsonTree.parse(body)).getJsonObject("response");
        String patch = response.containsKey("patch") ? new String(Base64.getDecoder().decode(
                response.getString("patch")), StandardCharsets.UTF_8) : "";
        String message = response.get("status") instanceof JsonObject status ? status.getString("message", null)
                : null;
        return new Answer(response.getBoolean("allowed"), patch, message);
    }

    /** {@code count} reviews drawn from {@code seed}. */
    static List<Review> generate(int count, long seed) {
        var random = new Random(seed);
        var reviews = new ArrayList<Review>(count);
        for (int i = 0; i < count; i++) {
            String namespace = random.nextInt(3) == 0
                    ? SoakCluster.FIXED_NAMESPACES.get(random.nextInt(SoakCluster.FIXED_NAMESPACES.size()))
                    : "soak-ns-" + random.nextInt(SoakCluster.POOL);
            String node = random.nextInt(3) == 0 ? null : "soak-node-" + random.nextInt(SoakCluster.POOL);
            String name = "pod-" + i;
            JsonObject object = pod(random, name, namespace, node);
            boolean update = random.nextInt(5) == 0;
            JsonObject old = update ? pod(random, name, namespace, node) : null;
            String path = random.nextInt(4) == 0 ? "/validate" : "/mutate";
            var request = JSON.createObjectBuilder().add("uid", "soak-" + i)
                    .add("kind", JSON.createObjectBuilder().add("group", "").add("version", "v1").add("kind", "Pod"))
                    .add("resource", JSON.createObjectBuilder().add("group", "").add("version", "v1")
                            .add("resource", "pods"))
                    .add("name", name).add("namespace", namespace)
                    .add("operation", update ? "UPDATE" : "CREATE")
                    .add("userInfo", JSON.createObjectBuilder().add("username", "soak"))
                    .add("object", object).add("dryRun", false);
            if (old != null) {
                request.add("oldObject", old);
            }
            byte[] body = JSON.createObjectBuilder().add("apiVersion", "admission.k8s.io/v1")
                    .add("kind", "AdmissionReview").add("request", request).build().toString()
                    .getBytes(StandardCharsets.UTF_8);
            // Decided from the bytes as sent, parsed as the server parses them.
            JsonObject sent = ((JsonObject) JsonTree.parse(body)).getJsonObject("request");
            reviews.add(new Review(path, body, update ? AdmissionOperation.UPDATE : AdmissionOperation.CREATE,
                    namespace, sent.get("object"), sent.get("oldObject"), node));
        }
        return reviews;
    }

    private static JsonObject pod(Random random, String name, String namespace, String node) {
        var containers = JSON.createArrayBuilder();
        int count = 1 + random.nextInt(3);
        for (int c = 0; c < count; c++) {
            JsonObjectBuilder container = JSON.createObjectBuilder().add("name", "c" + c)
                    .add("image", IMAGES.get(random.nextInt(IMAGES.size())));
            if (random.nextInt(4) == 0) {
                container.add("imagePullPolicy", "Never");
            }
            containers.add(container);
        }
        var spec = JSON.createObjectBuilder().add("containers", containers);
        if (node != null) {
            spec.add("nodeName", node);
        }
        var metadata = JSON.createObjectBuilder().add("name", name).add("namespace", namespace)
                .add("labels", JSON.createObjectBuilder()
                        .add("app", SoakCluster.APPS.get(random.nextInt(SoakCluster.APPS.size()))));
        if (random.nextBoolean()) {
            metadata.add("annotations", JSON.createObjectBuilder().add("owner", "soak"));
        }
        return JSON.createObjectBuilder().add("apiVersion", "v1").add("kind", "Pod").add("metadata", metadata)
                .add("spec", spec).build();
    }
}

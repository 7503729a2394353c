package io.remold.benchmarks;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.spi.JsonProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * AdmissionReviews of Pods and Deployments generated from a seed, for the differential test against Gatekeeper: varied
 * containers (names the {@link GatekeeperMix} keys on and others, images with and without domain, tag or digest, args,
 * ports, env), labels, names (some with only {@code generateName}) and namespaces. The same seed gives the same
 * reviews: review {@code i} is the {@code i}-th drawn from one {@code java.util.Random(seed)}.
 */
public final class GeneratedReviews {
    /** Every namespace a review can be in; Gatekeeper looks each up, so they must exist in its API server. */
    public static final List<String> NAMESPACES = List.of("shop", "team-1", "team-7", "default", "kube-public", "web");
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final String[] CONTAINERS = {"app", "envoy", "web", "worker", "sidecar"};
    private static final String[] IMAGES = {
        "nginx", "nginx:1.27", "docker.io/library/nginx:1.27", "registry.example.com/shop/checkout:2.14.3",
        "envoyproxy/envoy:v1.31.2", "localhost:5000/tools/debug@sha256:" + "0123456789abcdef".repeat(4),
        "registry.k8s.io/pause:3.10", "busybox:1.36", "ghcr.io/acme/worker:latest",
    };
    private static final String[] ARGS = {"--debug", "--log-format=json", "-v=4", "--port=8080", "--log-format=text"};
    private static final String[] NAMES = {"web-", "api-", "checkout", "worker-", "web-frontend-"};
    private static final String[] TIERS = {"backend", "web", "batch"};
    private static final String[] PULL_POLICIES = {"Always", "IfNotPresent", "Never"};

    private GeneratedReviews() {
    }

    /** {@code count} reviews from {@code seed}. */
    public static List<JsonObject> reviews(long seed, int count) {
        Random random = new Random(seed);
        List<JsonObject> reviews = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            reviews.add(review(random, "seed-%d-%d".formatted(seed, i)));
        }
        return reviews;
    }

    private static JsonObject review(Random random, String uid) {
        boolean pod = random.nextInt(5) < 3;
        String namespace = pick(random, NAMESPACES.toArray(String[]::new));
        String prefix = pick(random, NAMES);
        String app = prefix.replaceAll("-$", "");
        // One in ten has only a generateName, as a ReplicaSet's pods do; the API server names it after admission.
        String name = random.nextInt(10) == 0 ? null
            : prefix.endsWith("-") ? prefix + Integer.toString(random.nextInt(1 << 20), 36) : prefix;
        JsonObjectBuilder metadata = JSON.createObjectBuilder();
        if (name == null) {
            metadata.add("generateName", app + "-");
        } else {
            metadata.add("name", name);
        }
        metadata.add("namespace", namespace);
        JsonObjectBuilder labels = JSON.createObjectBuilder();
        if (random.nextBoolean()) {
            labels.add("app", app);
        }
        if (random.nextInt(3) > 0) {
            labels.add("tier", pick(random, TIERS));
        }
        if (random.nextInt(4) == 0) {
            labels.add("owner", "team-" + random.nextInt(10));
        }
        metadata.add("labels", labels);
        if (random.nextInt(3) == 0) {
            metadata.add("annotations", JSON.createObjectBuilder().add("remold.io/name", "preset"));
        }

        JsonObjectBuilder podSpec = JSON.createObjectBuilder().add("containers", containers(random, 1));
        if (!pod && random.nextInt(3) == 0) {
            podSpec.add("initContainers", containers(random, 0));
        }
        if (random.nextInt(4) == 0) {
            podSpec.add("securityContext", JSON.createObjectBuilder().add("runAsNonRoot", random.nextBoolean()));
        }
        JsonObjectBuilder object = JSON.createObjectBuilder()
            .add("apiVersion", pod ? "v1" : "apps/v1")
            .add("kind", pod ? "Pod" : "Deployment")
            .add("metadata", metadata);
        if (pod) {
            object.add("spec", podSpec);
        } else {
            JsonObject selector = JSON.createObjectBuilder()
                .add("matchLabels", JSON.createObjectBuilder().add("app", app)).build();
            object.add("spec", JSON.createObjectBuilder()
                .add("replicas", 1 + random.nextInt(3))
                .add("selector", selector)
                .add("template", JSON.createObjectBuilder()
                    .add("metadata", JSON.createObjectBuilder().add("labels", selector.get("matchLabels")))
                    .add("spec", podSpec)));
        }
        JsonObject built = object.build();
        boolean update = random.nextInt(5) == 0;
        String group = pod ? "" : "apps";
        JsonObject kind = JSON.createObjectBuilder().add("group", group).add("version", "v1")
            .add("kind", pod ? "Pod" : "Deployment").build();
        JsonObject resource = JSON.createObjectBuilder().add("group", group).add("version", "v1")
            .add("resource", pod ? "pods" : "deployments").build();
        JsonObjectBuilder request = JSON.createObjectBuilder()
            .add("uid", uid)
            .add("kind", kind).add("resource", resource).add("requestKind", kind).add("requestResource", resource)
            .add("namespace", namespace)
            .add("operation", update ? "UPDATE" : "CREATE")
            .add("userInfo", JSON.createObjectBuilder().add("username", "admin")
                .add("groups", JSON.createArrayBuilder().add("system:masters").add("system:authenticated")))
            .add("object", built)
            .add("dryRun", false);
        if (name != null) {
            request.add("name", name);
        }
        if (update) {
            request.add("oldObject", built);
        }
        return JSON.createObjectBuilder()
            .add("apiVersion", "admission.k8s.io/v1").add("kind", "AdmissionReview").add("request", request).build();
    }

    /** {@code min} to three containers with distinct names. */
    private static JsonArrayBuilder containers(Random random, int min) {
        List<String> names = new ArrayList<>(List.of(CONTAINERS));
        JsonArrayBuilder containers = JSON.createArrayBuilder();
        int count = min + random.nextInt(4 - min);
        for (int c = 0; c < count; c++) {
            JsonObjectBuilder container = JSON.createObjectBuilder()
                .add("name", names.remove(random.nextInt(names.size())))
                .add("image", pick(random, IMAGES));
            if (random.nextBoolean()) {
                container.add("imagePullPolicy", pick(random, PULL_POLICIES));
            }
            if (random.nextInt(3) > 0) {
                JsonArrayBuilder args = JSON.createArrayBuilder();
                for (String arg : ARGS) {
                    if (random.nextInt(3) == 0) {
                        args.add(arg);
                    }
                }
                container.add("args", args);
            }
            if (random.nextBoolean()) {
                JsonArrayBuilder ports = JSON.createArrayBuilder()
                    .add(JSON.createObjectBuilder().add("name", "http").add("containerPort", 8080));
                if (random.nextBoolean()) {
                    JsonObjectBuilder metrics = JSON.createObjectBuilder().add("containerPort", 9090);
                    if (random.nextBoolean()) {
                        metrics.add("protocol", random.nextBoolean() ? "TCP" : "UDP");
                    }
                    ports.add(metrics);
                }
                container.add("ports", ports);
            }
            if (random.nextInt(3) == 0) {
                JsonArrayBuilder env = JSON.createArrayBuilder().add(JSON.createObjectBuilder()
                    .add("name", "LOG_LEVEL").add("value", "info"));
                if (random.nextBoolean()) {
                    env.add(JSON.createObjectBuilder().add("name", "POD_NAMESPACE").add("value", "unset"));
                }
                container.add("env", env);
            }
            containers.add(container);
        }
        return containers;
    }

    private static String pick(Random random, String[] values) {
        return values[random.nextInt(values.length)];
    }
}

package io.remold.benchmarks;

import io.remold.api.ModRule;
import io.remold.api.ModRules;
import io.remold.engine.Engine;
import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cluster side of the soak ({@link Soak}): ModRules, Namespaces and Nodes created, changed and deleted through
 * the API server (plain HTTP through {@code kubectl proxy}), and, after each change, the {@link State} the Remold
 * server should decide with: an engine of the rules as the API server stored them, and the Namespace and Node
 * manifests as it returned them (without {@code managedFields}, as the server's informers keep them).
 *
 * <p>Rules live in two fixed namespaces ({@link #FIXED_NAMESPACES}) and in the system namespace (cluster-wide, with
 * {@code targetNamespaceRegex}); the churned namespaces hold no objects, so deleting one and finalizing it (there is
 * no namespace controller) removes it at once. Rule names are never reused.
 */
final class SoakCluster {
    static final String SYSTEM_NAMESPACE = "remold-system";
    static final List<String> FIXED_NAMESPACES = List.of("soak-a", "soak-b");
    /** Churned namespaces {@code soak-ns-N} and nodes {@code soak-node-N}, N below this. */
    static final int POOL = 8;
    static final List<String> APPS = List.of("web", "api", "worker", "batch", "cache", "blocked");
    static final String IGNORE_LABEL = "admission.remold.io/ignore";

    private static final JsonProvider JSON = JsonProvider.provider();
    private static final String MODRULES = "/apis/remold.io/v1beta1/namespaces/%s/modrules";

    /** What a rule does; a change keeps the kind and draws new parameters. */
    private enum Kind { LABEL, NODE_ZONE, MIRROR, REJECT_LATEST, REJECT_APP, FAILING }

    private record Rule(String namespace, String name, Kind kind, ModRule parsed, JsonObject spec) {
        String id() {
            return namespace + "/" + name;
        }
    }

    /**
     * What the server should hold once a change has reached it. {@code epoch} is the number of changes begun when
     * this state was published; {@code stableSinceNanos} when its last change was answered by the API server.
     */
    record State(long epoch, long stableSinceNanos, Engine engine, Map<String, JsonObject> namespaces,
                 Map<String, JsonObject> nodes, State previous) {
        boolean ignored(String namespace) {
            JsonObject ns = namespaces.get(namespace);
            return ns != null && ns.getJsonObject("metadata").get("labels") instanceof JsonObject labels
                    && "true".equals(labels.getString(IGNORE_LABEL, null));
        }

        /** This state without its predecessor, so that states do not chain back to the start. */
        State alone() {
            return new State(epoch, stableSinceNanos, engine, namespaces, nodes, null);
        }
    }

    /** Changes made so far, by what changed. */
    record Counts(long rulesCreated, long rulesChanged, long rulesDeleted, long namespaceChanges, long nodeChanges) {
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final URI api;
    private final Random random;
    private final Map<String, Rule> rules = new TreeMap<>();
    private final Map<String, JsonObject> namespaces = new TreeMap<>();
    private final Map<String, JsonObject> nodes = new TreeMap<>();
    private final AtomicLong epoch = new AtomicLong();
    private volatile State state;
    private long ruleSequence;
    private long rulesCreated;
    private long rulesChanged;
    private long rulesDeleted;
    private long namespaceChanges;
    private long nodeChanges;
    private long tickCount;

    SoakCluster(URI api, long seed) {
        this.api = api;
        this.random = new Random(seed);
    }

    /** The state requests are compared against now; compare only while {@link #epoch()} still equals its epoch. */
    State state() {
        return state;
    }

    long epoch() {
        return epoch.get();
    }

    synchronized Counts counts() {
        return new Counts(rulesCreated, rulesChanged, rulesDeleted, namespaceChanges, nodeChanges);
    }

    synchronized int ruleCount() {
        return rules.size();
    }

    /** The fixed namespaces, half of the churned ones and nodes, and {@code ruleCount} rules. */
    synchronized void setUp(int ruleCount) throws IOException, InterruptedException {
        epoch.incrementAndGet();
        for (String name : FIXED_NAMESPACES) {
            namespaces.put(name, withoutManagedFields(call("POST", "/api/v1/namespaces", namespace(name))));
        }
        for (int i = 0; i < POOL; i += 2) {
            churnNamespace("soak-ns-" + i);
            churnNode("soak-node-" + i);
        }
        for (int i = 0; i < ruleCount; i++) {
            createRule();
        }
        publish();
    }

    /** One second's churn: a rule created, one changed, one deleted; a namespace and a node churned. */
    synchronized void tick() throws IOException, InterruptedException {
        epoch.incrementAndGet();
        tickCount++;
        List<String> ids = new ArrayList<>(rules.keySet());
        changeRule(rules.get(ids.get(random.nextInt(ids.size()))));
        deleteRule(rules.get(ids.get(random.nextInt(ids.size()))));
        createRule();
        churnNamespace("soak-ns-" + random.nextInt(POOL));
        churnNode("soak-node-" + random.nextInt(POOL));
        if (tickCount % 5 == 0) {
            String fixed = FIXED_NAMESPACES.get(random.nextInt(FIXED_NAMESPACES.size()));
            namespaces.put(fixed, withoutManagedFields(call("PATCH", "/api/v1/namespaces/" + fixed, relabel())));
            namespaceChanges++;
        }
        publish();
    }

    private void publish() {
        var parsed = rules.values().stream().map(Rule::parsed).toList();
        state = new State(epoch.get(), System.nanoTime(), Engine.builder().systemNamespace(SYSTEM_NAMESPACE)
                .rules(parsed).build(), Map.copyOf(namespaces), Map.copyOf(nodes),
                state == null ? null : state.alone());
    }

    // ---- rules

    private void createRule() throws IOException, InterruptedException {
        Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
        String namespace = switch (kind) {
            case LABEL, REJECT_APP, FAILING -> FIXED_NAMESPACES.get(random.nextInt(FIXED_NAMESPACES.size()));
            case NODE_ZONE, MIRROR, REJECT_LATEST -> SYSTEM_NAMESPACE;
        };
        String name = "soak-" + ruleSequence++;
        JsonObject spec = spec(kind, name);
        JsonObject manifest = JSON.createObjectBuilder().add("apiVersion", "remold.io/v1beta1").add("kind", "ModRule")
                .add("metadata", JSON.createObjectBuilder().add("name", name).add("namespace", namespace))
                .add("spec", spec).build();
        store(namespace, name, kind, call("POST", MODRULES.formatted(namespace), manifest), spec);
        rulesCreated++;
    }

    private void changeRule(Rule rule) throws IOException, InterruptedException {
        JsonObject spec = spec(rule.kind(), rule.name());
        // A merge patch replaces lists whole; fields the new spec lacks are removed with null.
        JsonObjectBuilder patchSpec = JSON.createObjectBuilder(spec);
        rule.spec().keySet().stream().filter(k -> !spec.containsKey(k)).forEach(patchSpec::addNull);
        JsonObject patch = JSON.createObjectBuilder().add("spec", patchSpec).build();
        store(rule.namespace(), rule.name(), rule.kind(),
                call("PATCH", MODRULES.formatted(rule.namespace()) + "/" + rule.name(), patch), spec);
        rulesChanged++;
    }

    private void deleteRule(Rule rule) throws IOException, InterruptedException {
        call("DELETE", MODRULES.formatted(rule.namespace()) + "/" + rule.name(), null);
        rules.remove(rule.id());
        rulesDeleted++;
    }

    /** Keeps the rule as the API server stored it (defaults, pruning), read as the server reads it. */
    private void store(String namespace, String name, Kind kind, JsonObject stored, JsonObject spec) {
        var rule = new Rule(namespace, name, kind, ModRules.fromJson(stored, "ModRule " + namespace + "/" + name),
                spec);
        rules.put(rule.id(), rule);
    }

    private JsonObject spec(Kind kind, String name) {
        JsonObjectBuilder spec = JSON.createObjectBuilder();
        JsonArray isPod = array(item("$.kind", "matchValue", JSON.createValue("Pod")));
        switch (kind) {
            case LABEL -> spec.add("type", "Patch").add("executionTier", random.nextInt(3) - 1)
                    .add("match", with(isPod, item("$.metadata.labels.app", "matchValues",
                            array(JSON.createValue(app()), JSON.createValue(app())))))
                    .add("patch", array(op("add", "/metadata/labels/" + name,
                            "{{Target.syntheticRefs.namespace.metadata.labels.team | default \"none\"}}-"
                                    + random.nextInt(1000))));
            case NODE_ZONE -> spec.add("type", "Patch")
                    .add("targetNamespaceRegex", "^soak-(a|ns-[0-" + random.nextInt(8) + "])$")
                    .add("match", with(isPod, item("$.syntheticRefs.node.metadata.labels.zone", "matchRegex",
                            JSON.createValue("^zone-[" + (random.nextBoolean() ? "ab" : "bc") + "]$"))))
                    .add("patch", array(op("add", "/metadata/annotations/soak.remold.io~1" + name,
                            "{{Target.syntheticRefs.node.metadata.labels.zone}}/{{Target.spec.nodeName}}")));
            case MIRROR -> spec.add("type", "Patch").add("executionTier", random.nextInt(3) - 1)
                    .add("targetNamespaceRegex", "^soak-")
                    .add("match", with(isPod, item("$.syntheticRefs.namespace.metadata.labels.tier", "matchValue",
                            JSON.createValue(random.nextBoolean() ? "gold" : "silver"))))
                    .add("patch", array(
                            selectOp("replace", "$.spec.containers[? @.image =~ \"^docker[.]io/\"].image",
                                    "/spec/containers/#0/image",
                                    "{{SelectedItem | regexReplaceAll \"^docker[.]io/(.*)$\" \"mirror-"
                                            + random.nextInt(100) + ".example/$1\"}}"),
                            selectOp("add", "$.spec.containers[? isUndefined(@.imagePullPolicy)]",
                                    "/spec/containers/#0/imagePullPolicy",
                                    random.nextBoolean() ? "Always" : "IfNotPresent")));
            case REJECT_LATEST -> spec.add("type", "Reject").add("targetNamespaceRegex", "^soak-")
                    .add("match", with(with(isPod, item("$.spec.containers[*].image", "matchRegex",
                            JSON.createValue(random.nextBoolean() ? ":latest$" : "^[^:]+$"))),
                            item("$.syntheticRefs.namespace.metadata.labels.strict", "matchValue",
                                    JSON.createValue("true"))))
                    .add("rejectMessage", "pod {{Target.metadata.name}} in {{Namespace}} (team "
                            + "{{Target.syntheticRefs.namespace.metadata.labels.team}}) needs a fixed tag");
            case REJECT_APP -> spec.add("type", "Reject")
                    .add("admissionOperations", array(JSON.createValue(random.nextBoolean() ? "CREATE" : "UPDATE")))
                    .add("match", with(isPod, item("$.metadata.labels.app", "matchValue", JSON.createValue(app()))))
                    .add("rejectMessage", "{{Operation}} of {{Target.metadata.labels.app}} refused by " + name);
            case FAILING -> spec.add("type", "Patch")
                    .add("match", with(isPod, item("$.metadata.labels.app", "matchValue", JSON.createValue(app()))))
                    .add("patch", array(op("replace", "/metadata/annotations/not-there-" + random.nextInt(10), "x")));
        }
        return spec.build();
    }

    private String app() {
        return APPS.get(random.nextInt(APPS.size()));
    }

    private static JsonObject item(String select, String criterion, JsonValue value) {
        return JSON.createObjectBuilder().add("select", select).add(criterion, value).build();
    }

    private static JsonObject op(String op, String path, String value) {
        return JSON.createObjectBuilder().add("op", op).add("path", path).add("value", value).build();
    }

    private static JsonObject selectOp(String op, String select, String path, String value) {
        return JSON.createObjectBuilder(op(op, path, value)).add("select", select).build();
    }

    private static JsonArray array(JsonValue... values) {
        var array = JSON.createArrayBuilder();
        for (JsonValue value : values) {
            array.add(value);
        }
        return array.build();
    }

    private static JsonArray with(JsonArray array, JsonValue value) {
        return JSON.createArrayBuilder(array).add(value).build();
    }

    // ---- namespaces and nodes

    /** Creates the namespace if absent; else relabels it, or deletes and finalizes it (half the time each). */
    private void churnNamespace(String name) throws IOException, InterruptedException {
        namespaceChanges++;
        if (!namespaces.containsKey(name)) {
            namespaces.put(name, withoutManagedFields(call("POST", "/api/v1/namespaces", namespace(name))));
        } else if (random.nextBoolean()) {
            namespaces.put(name, withoutManagedFields(call("PATCH", "/api/v1/namespaces/" + name, relabel())));
        } else {
            JsonObject terminating = call("DELETE", "/api/v1/namespaces/" + name, null);
            JsonObject finalized = JSON.createObjectBuilder(terminating)
                    .add("spec", JSON.createObjectBuilder().add("finalizers", JsonValue.EMPTY_JSON_ARRAY)).build();
            call("PUT", "/api/v1/namespaces/" + name + "/finalize", finalized); // empty and deleted: gone now
            namespaces.remove(name);
        }
    }

    private JsonObject namespace(String name) {
        return JSON.createObjectBuilder().add("apiVersion", "v1").add("kind", "Namespace")
                .add("metadata", JSON.createObjectBuilder().add("name", name).add("labels", labels(false))).build();
    }

    /** A merge patch with new labels; the ignore label is set or removed. */
    private JsonObject relabel() {
        return JSON.createObjectBuilder().add("metadata", JSON.createObjectBuilder().add("labels", labels(true)))
                .build();
    }

    private JsonObjectBuilder labels(boolean removeIgnore) {
        var labels = JSON.createObjectBuilder()
                .add("team", List.of("red", "blue", "green").get(random.nextInt(3)))
                .add("tier", random.nextBoolean() ? "gold" : "silver")
                .add("strict", String.valueOf(random.nextBoolean()));
        if (random.nextInt(10) == 0) {
            labels.add(IGNORE_LABEL, "true");
        } else if (removeIgnore) {
            labels.addNull(IGNORE_LABEL);
        }
        return labels;
    }

    /** Creates the node if absent; else relabels it (60%) or deletes it. */
    private void churnNode(String name) throws IOException, InterruptedException {
        nodeChanges++;
        var labels = JSON.createObjectBuilder().add("zone", "zone-" + "abc".charAt(random.nextInt(3)))
                .add("soak-generation", String.valueOf(nodeChanges));
        if (!nodes.containsKey(name)) {
            JsonObject node = JSON.createObjectBuilder().add("apiVersion", "v1").add("kind", "Node")
                    .add("metadata", JSON.createObjectBuilder().add("name", name).add("labels", labels)).build();
            nodes.put(name, withoutManagedFields(call("POST", "/api/v1/nodes", node)));
        } else if (random.nextInt(10) < 6) {
            JsonObject patch = JSON.createObjectBuilder().add("metadata", JSON.createObjectBuilder()
                    .add("labels", labels)).build();
            nodes.put(name, withoutManagedFields(call("PATCH", "/api/v1/nodes/" + name, patch)));
        } else {
            call("DELETE", "/api/v1/nodes/" + name, null);
            nodes.remove(name);
        }
    }

    private static JsonObject withoutManagedFields(JsonObject object) {
        JsonObject metadata = object.getJsonObject("metadata");
        return metadata.containsKey("managedFields") ? JsonTree.with(object, "metadata",
                JsonTree.without(metadata, "managedFields")) : object;
    }

    // ---- the API

    /** One API call; anything but 2xx ends the soak (the state would no longer be known). PATCH is a merge patch. */
    private JsonObject call(String method, String path, JsonObject body) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(api.resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json")
                .header("Content-Type", "PATCH".equals(method) ? "application/merge-patch+json" : "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body.toString()));
        HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() / 100 != 2) {
            throw new IOException(method + " " + path + ": HTTP " + response.statusCode() + ": "
                    + new String(response.body(), StandardCharsets.UTF_8));
        }
        return (JsonObject) JsonTree.parse(response.body());
    }
}

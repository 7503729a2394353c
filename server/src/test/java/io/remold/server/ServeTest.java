package io.remold.server;

import io.remold.server.http.TestServer;
import io.remold.server.http.WebhookServerTest;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static io.remold.server.Eventually.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/** The folder mode as {@code remold serve --rules DIR} runs it: generated certificate, rules reloaded on change. */
class ServeTest {
    @TempDir
    Path dir;

    static final String RULE = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: no-web}
            spec:
              type: Reject
              match:
              - select: '$.metadata.name'
                matchValue: web
            """;

    /** A port free a moment ago: for the admin listener, whose 0 means none. */
    static int freePort() throws IOException {
        try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void servesTheFolderAndFollowsItsChanges() throws Exception {
        Path rules = dir.resolve("rules");   // absent at start: the server starts without rules
        var printed = new ByteArrayOutputStream();
        ServerConfig config = ServerConfig.load(Map.of("port", "0", "host", "127.0.0.1", "rules", rules.toString(),
                "generated-cert-dir", dir.resolve("tls").toString(), "poll-interval-ms", "50",
                "shutdown-grace-seconds", "1", "admin-port", String.valueOf(freePort())), Map.of());
        try (Serve serve = Serve.start(config, new PrintStream(printed, true, StandardCharsets.UTF_8));
             HttpClient client = TestServer.client(serve.tls().ca())) {
            assertThat(printed.toString(StandardCharsets.UTF_8),
                    containsString("CA file: " + dir.resolve("tls").resolve("ca.crt")));
            String body = WebhookServerTest.review("s1", "CREATE", "");
            BooleanSupplier allowed = () -> {
                HttpResponse<String> http = TestServer.send(client, HttpRequest.newBuilder(
                                URI.create("https://localhost:" + serve.port() + "/validate"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build());
                JsonObject response = WebhookServerTest.response(http);
                return response.getBoolean("allowed");
            };
            HttpResponse<String> ready = TestServer.send(client, HttpRequest.newBuilder(
                    URI.create("https://localhost:" + serve.port() + "/readyz")).build());
            assertThat(ready.statusCode(), is(200));
            assertThat(allowed.getAsBoolean(), is(true));

            Files.createDirectories(rules);
            Files.writeString(rules.resolve("no-web.yaml"), RULE);
            await("the new file's rule applies", () -> !allowed.getAsBoolean());
            String metrics = TestServer.send(client, HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + serve.adminPort() + "/metrics")).build()).body();
            assertThat("a rule without namespace is named alike everywhere", metrics,
                    containsString("\nremold_rule_rejections_total{rule=\"no-web\"} 1\n"));

            Files.writeString(rules.resolve("no-web.yaml"), RULE.replace("matchValue: web", "matchValue: other"));
            await("the changed rule applies", allowed);

            Files.writeString(rules.resolve("no-web.yaml"), RULE);
            await("the rule applies again", () -> !allowed.getAsBoolean());
            Files.delete(rules.resolve("no-web.yaml"));
            await("the deleted file's rule is gone", allowed);
        }
    }

    /** Another namespace's OverridePolicy: it labels every Pod it is let change. */
    static final String OTHER_NAMESPACES_POLICY = """
            apiVersion: policy.kcloudlabs.io/v1alpha1
            kind: OverridePolicy
            metadata: {name: touch, namespace: other}
            spec:
              resourceSelectors: [{apiVersion: v1, kind: Pod}]
              overrideRules: [{overriders: {plaintext: [{path: /metadata/labels/touched, op: add, value: "yes"}]}}]
            """;

    /**
     * The administrator's kinitiras settings, from the server's options to the policies, over HTTPS: whether another
     * namespace's OverridePolicy patches a Pod of team-a, labelled for kinitiras's webhook or not.
     */
    @ParameterizedTest(name = "cross-namespace {0}, webhook-label {1}, labelled {2}")
    @CsvSource({
            "false, false, true, false",
            "true, false, false, true",
            "true, true, false, false",
            "true, true, true, true",
            "false, true, true, false"})
    void theKinitirasSettingsReachThePolicies(boolean crossNamespace, boolean webhookLabel, boolean labelled,
                                              boolean patched) throws Exception {
        Path rules = Files.createDirectories(dir.resolve("rules"));
        Files.writeString(rules.resolve("touch.yaml"), OTHER_NAMESPACES_POLICY);
        ServerConfig config = ServerConfig.load(Map.of("port", "0", "host", "127.0.0.1", "rules", rules.toString(),
                "generated-cert-dir", dir.resolve("tls").toString(), "shutdown-grace-seconds", "1", "admin-port", "0",
                "kinitiras-cross-namespace-overrides", String.valueOf(crossNamespace),
                "kinitiras-webhook-label", String.valueOf(webhookLabel)), Map.of());
        String label = labelled ? "\"kinitiras.kcloudlabs.io/webhook\":\"enabled\"" : "\"app\":\"web\"";
        String body = WebhookServerTest.review("k1", "CREATE", "").replace("\"namespace\":\"team-a\"}",
                "\"namespace\":\"team-a\",\"labels\":{" + label + "}}");
        try (Serve serve = Serve.start(config, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8)); HttpClient client = TestServer.client(serve.tls().ca())) {
            JsonObject response = WebhookServerTest.response(TestServer.send(client, HttpRequest.newBuilder(
                            URI.create("https://localhost:" + serve.port() + "/mutate"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build()));
            assertThat(response.toString(), response.getBoolean("allowed"), is(true));
            String patch = response.containsKey("patch")
                    ? new String(Base64.getDecoder().decode(response.getString("patch")),
                    StandardCharsets.UTF_8) : "";
            assertThat(patch, patch.contains("/metadata/labels/touched"), is(patched));
        }
    }

    @Test
    void clusterModeIsNotReadyUntilTheInformersHaveListed() throws Exception {
        // An API server that refuses connections: the informers keep retrying, the webhooks answer, /readyz says no.
        Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: x, context: {cluster: c, user: u}}]
                current-context: x
                """);
        ServerConfig config = ServerConfig.load(Map.of("port", "0", "host", "127.0.0.1",
                "kubeconfig", kubeconfig.toString(), "generated-cert-dir", dir.resolve("tls").toString(),
                "shutdown-grace-seconds", "1", "admin-port", String.valueOf(freePort())), Map.of());
        try (Serve serve = Serve.start(config, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8)); HttpClient client = TestServer.client(serve.tls().ca())) {
            URI base = URI.create("https://localhost:" + serve.port());
            assertThat(TestServer.send(client, HttpRequest.newBuilder(base.resolve("/healthz")).build()).statusCode(),
                    is(200));
            assertThat(TestServer.send(client, HttpRequest.newBuilder(base.resolve("/readyz")).build()).statusCode(),
                    is(503));
            URI admin = URI.create("http://127.0.0.1:" + serve.adminPort());
            assertThat(TestServer.send(client, HttpRequest.newBuilder(admin.resolve("/healthz")).build()).statusCode(),
                    is(200));
            assertThat(TestServer.send(client, HttpRequest.newBuilder(admin.resolve("/readyz")).build()).statusCode(),
                    is(503));
            HttpResponse<String> http = TestServer.send(client, HttpRequest.newBuilder(base.resolve("/mutate"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(WebhookServerTest.review("c1", "CREATE", ""))).build());
            assertThat(WebhookServerTest.response(http).getBoolean("allowed"), is(true));
        }
    }

    /**
     * F15: the server runs tenants' JavaScript, so it patches pods (the node annotation) only when asked to. With
     * node-annotations, a binding makes it read the pod from the API server; without, bindings reach no one.
     */
    @Test
    void boundPodsAreAnnotatedOnlyWithNodeAnnotations() throws Exception {
        var podReads = new java.util.concurrent.CopyOnWriteArrayList<String>();
        var api = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        api.createContext("/", exchange -> { // every read answers 404: informers retry, the injector finds no pod
            if (exchange.getRequestURI().getPath().startsWith("/api/v1/namespaces/team-a/pods/")) {
                podReads.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
            }
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
        });
        api.start();
        try {
            Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
                    apiVersion: v1
                    kind: Config
                    clusters: [{name: c, cluster: {server: "http://127.0.0.1:%d"}}]
                    users: [{name: u, user: {token: t}}]
                    contexts: [{name: x, context: {cluster: c, user: u}}]
                    current-context: x
                    """.formatted(api.getAddress().getPort()));
            for (boolean annotate : new boolean[]{false, true}) {
                var flags = new java.util.HashMap<>(Map.of("port", "0", "host", "127.0.0.1",
                        "kubeconfig", kubeconfig.toString(), "generated-cert-dir", dir.resolve("tls").toString(),
                        "shutdown-grace-seconds", "1"));
                if (annotate) {
                    flags.put("node-annotations", "true");
                }
                try (Serve serve = Serve.start(ServerConfig.load(flags, Map.of()), new PrintStream(
                        new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
                     HttpClient client = TestServer.client(serve.tls().ca())) {
                    assertThat("bindings reach the injector", serve.bindings() != io.remold.server.admission
                            .BindingListener.NONE, is(annotate));
                    HttpResponse<String> http = TestServer.send(client, HttpRequest.newBuilder(
                                    URI.create("https://localhost:" + serve.port() + "/mutate"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(WebhookServerTest.binding("b1", false))).build());
                    assertThat(WebhookServerTest.response(http).getBoolean("allowed"), is(true));
                    if (annotate) {
                        await("the injector reading the bound pod",
                                () -> podReads.contains("GET /api/v1/namespaces/team-a/pods/web"));
                    }
                }
                if (!annotate) {
                    assertThat("without node-annotations no pod is read or patched", podReads, is(List.of()));
                }
            }
        } finally {
            api.stop(0);
        }
    }

    @Test
    void anUnreadableKubeconfigStopsTheStart() {
        var err = new ByteArrayOutputStream();
        int code = Main.run(new String[]{"serve", "--port", "0", "--kubeconfig", dir.resolve("missing").toString()},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code, is(1));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("remold: cannot start: cannot connect to the cluster ("
                + dir.resolve("missing") + ")"));
    }
}

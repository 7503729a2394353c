package io.remold.server.http;

import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocket;

import static io.remold.server.Eventually.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.startsWith;

/** Calls the real HTTPS endpoints with AdmissionReview bodies. */
public class WebhookServerTest {
    static final int MAX_BODY = 4096;

    @TempDir
    Path dir;
    final List<String> bindings = new CopyOnWriteArrayList<>();
    TestServer server;

    @BeforeEach
    void start() {
        BindingListener listener = (namespace, pod, node) -> bindings.add(namespace + "/" + pod + "@" + node);
        server = new TestServer(dir, MAX_BODY, ClusterRefs.NONE, listener);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    public static String review(String uid, String operation, String extra) {
        return """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"%s",
                 "kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},
                 "namespace":"team-a","name":"web","operation":"%s",
                 "object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"team-a"}}%s}}
                """.formatted(uid, operation, extra);
    }

    public static JsonObject response(HttpResponse<String> http) {
        assertThat(http.body(), http.statusCode(), is(200));
        try (var reader = AdmissionReview.JSON.createReader(new StringReader(http.body()))) {
            JsonObject review = reader.readObject();
            assertThat(review.getString("apiVersion"), is("admission.k8s.io/v1"));
            assertThat(review.getString("kind"), is("AdmissionReview"));
            return review.getJsonObject("response");
        }
    }

    @Test
    void healthAndReadinessOnBothListeners() {
        assertThat(server.get("/healthz").statusCode(), is(200));
        assertThat(server.getAdmin("/healthz").statusCode(), is(200));
        assertThat(server.get("/readyz").statusCode(), is(503));
        assertThat(server.getAdmin("/readyz").statusCode(), is(503));
        server.store.synced();
        assertThat(server.get("/readyz").statusCode(), is(200));
        assertThat(server.getAdmin("/readyz").statusCode(), is(200));
    }

    @Test
    void metricsAreServedOnlyOnTheAdminListener() {
        assertThat(server.get("/metrics").statusCode(), is(404));
        assertThat(server.getAdmin("/metrics").statusCode(), is(200));
        assertThat(server.getAdmin("/mutate").statusCode(), is(404));
    }

    @Test
    void requestsBeyondTheInFlightBoundAre503AndTheServerRecovers() throws Exception {
        // A read timeout the stalled requests do not reach while the test opens them (StalledRequestsTest reaches it).
        server.close();
        long bodiesInFlight = 32 << 20;
        server = new TestServer(dir.resolve("long"), new HttpLimits(MAX_BODY, bodiesInFlight, Duration.ofMinutes(5)),
                ClusterRefs.NONE, (namespace, pod, node) -> { }, Duration.ZERO, null);
        server.store.synced();
        // Each stalled request has sent its headers and one byte of a 100-byte body: its handler waits to read.
        byte[] stalled = ("POST /mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: 100\r\n\r\n{").getBytes(StandardCharsets.US_ASCII);
        var sockets = new ArrayList<SSLSocket>();
        try {
            for (int i = 0; i < WebhookServer.MAX_CONCURRENT_REQUESTS; i++) {
                var socket = (SSLSocket) server.client.sslContext().getSocketFactory()
                        .createSocket("127.0.0.1", server.server.port());
                socket.getOutputStream().write(stalled);
                socket.getOutputStream().flush();
                sockets.add(socket);
            }
            // The stalled requests reach their handlers one by one, each reserving its 100 bytes there: wait until all
            // hold a request slot. Requests sent meanwhile would race them for the slots (one that held a slot when a
            // stalled request came had that one refused, and with 255 stalled every later request was served).
            await("every stalled request in its handler", () -> server.server.bodyBytesAvailable()
                    == bodiesInFlight - 100L * WebhookServer.MAX_CONCURRENT_REQUESTS);
            HttpResponse<String> refused = server.post("/mutate", "application/json", review("over", "CREATE", ""));
            assertThat(refused.statusCode(), is(503));
            // Refused by the HTTP layer before any handler: no JSON reason, and the connection is closed.
            assertThat(refused.body(), is(""));
            sockets.removeFirst().close();
            HttpResponse<String> served = await(() -> server.post("/mutate", "application/json",
                    review("after", "CREATE", "")), http -> http.statusCode() == 200);
            assertThat(response(served).getString("uid"), is("after"));
        } finally {
            for (SSLSocket socket : sockets) {
                socket.close();
            }
        }
    }

    @Test
    void http2IsNegotiatedWithClientsThatOfferIt() {
        try (var h2 = HttpClient.newBuilder().sslContext(server.client.sslContext())
                .version(HttpClient.Version.HTTP_2).build()) {
            HttpResponse<String> http = TestServer.send(h2, HttpRequest.newBuilder(server.uri("/mutate"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(review("h2", "CREATE", ""))).build());
            assertThat(http.version(), is(HttpClient.Version.HTTP_2));
            assertThat(response(http).getString("uid"), is("h2"));
        }
    }

    @Test
    void noopAnswersAFixedAllow() {
        JsonObject response = response(server.post("/noop", "application/json", review("n1", "CREATE", "")));
        assertThat(response.getBoolean("allowed"), is(true));
    }

    @Test
    void withoutRulesEveryEndpointAllowsAndEchoesTheUid() {
        server.store.synced();
        for (String path : List.of("/mutate", "/validate")) {
            JsonObject response = response(server.post(path, "application/json", review("u-" + path, "CREATE", "")));
            assertThat(response.getString("uid"), is("u-" + path));
            assertThat(response.getBoolean("allowed"), is(true));
            assertThat(response.containsKey("patch"), is(false));
        }
    }

    static Stream<Arguments> badRequests() {
        String ok = review("b1", "CREATE", "");
        return Stream.of(
                Arguments.of("text/plain", ok, 415, "Content-Type must be application/json"),
                Arguments.of("application/json", "{\"apiVersion\":", 400,
                        "malformed JSON: unexpected end of input, expected a value at line 1, column 15"),
                Arguments.of("application/json", "[1,2]", 400, "not a JSON object"),
                // oldObject is built only when read, but its syntax is checked with the rest of the body.
                Arguments.of("application/json", review("b1", "UPDATE", ",\"oldObject\":{\"metadata\":{\"name\":}}"),
                        400, "malformed JSON: unexpected character '}', expected a value at line 4, column"),
                Arguments.of("application/json", ok.replace("admission.k8s.io/v1", "admission.k8s.io/v1beta1"),
                        400, "unsupported AdmissionReview version \\\"admission.k8s.io/v1beta1\\\""),
                Arguments.of("application/json", "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}",
                        400, "request: missing"),
                Arguments.of("application/json", ok.replace("\"uid\":\"b1\",", ""), 400, "request.uid: missing"),
                Arguments.of("application/json", review("b1", "PATCH", ""), 400,
                        "request.operation: unknown operation \\\"PATCH\\\""),
                Arguments.of("application/json", review("b1", "CREATE", ",\"x\":\"" + "y".repeat(MAX_BODY) + "\""),
                        413, "exceeds the limit of 4096"));
    }

    @ParameterizedTest
    @MethodSource("badRequests")
    void badInputIsA4xxWithAJsonReason(String contentType, String body, int code, String reason) {
        for (String path : List.of("/mutate", "/validate", "/validate-modrule", "/mutate-rule")) {
            HttpResponse<String> http = server.post(path, contentType, body);
            assertThat(path + " " + http.body(), http.statusCode(), is(code));
            assertThat(http.headers().firstValue("Content-Type").orElse(""), is("application/json"));
            assertThat(http.body(), containsString("\"reason\":"));
            assertThat(http.body(), containsString(reason));
        }
    }

    @Test
    void oversizeChunkedBodyIsRefused() {
        byte[] body = review("c1", "CREATE", ",\"x\":\"" + "y".repeat(2 * MAX_BODY) + "\"").getBytes();
        var request = HttpRequest.newBuilder(server.uri("/mutate")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).build();
        HttpResponse<String> http = TestServer.send(server.client, request);
        assertThat(http.statusCode(), is(413));
        assertThat(http.body(), containsString("exceeds the limit"));
    }

    public static String binding(String uid, boolean dryRun) {
        return """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"%s",
                 "kind":{"group":"","version":"v1","kind":"Binding"},"resource":{"group":"","version":"v1","resource":"pods"},
                 "subResource":"binding","namespace":"team-a","name":"web","operation":"CREATE","dryRun":%s,
                 "object":{"apiVersion":"v1","kind":"Binding","metadata":{"name":"web","namespace":"team-a"},
                           "target":{"apiVersion":"v1","kind":"Node","name":"node-7"}}}}
                """.formatted(uid, dryRun);
    }

    @Test
    void aBindingWithoutItsTargetIsA400NotAnEvaluationFailure() {
        // F17: pods/binding CREATE with object {"kind":"Binding"} answered 500 with a SEVERE stack trace.
        String malformed = binding("b2", false).replaceAll(",\\s*\"target\":\\{[^}]*}", "");
        HttpResponse<String> http = server.post("/mutate", "application/json", malformed);
        assertThat(http.body(), http.statusCode(), is(400));
        assertThat(http.body(), containsString("request.object.target.name: missing in the Binding"));
        assertThat(bindings, is(List.of()));
    }

    @Test
    void podBindingTellsTheListenerUnlessDryRun() {
        server.store.synced();
        JsonObject dry = response(server.post("/mutate", "application/json", binding("d1", true)));
        assertThat(dry.getBoolean("allowed"), is(true));
        assertThat(bindings, is(List.of()));
        JsonObject real = response(server.post("/mutate", "application/json", binding("d2", false)));
        assertThat(real.getBoolean("allowed"), is(true));
        assertThat(real.getString("uid"), is("d2"));
        assertThat(bindings, is(List.of("team-a/web@node-7")));
    }

    static String modRule(String spec) {
        return review("m1", "CREATE", "").replace(
                "\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\",\"namespace\":\"team-a\"}}",
                "\"object\":{\"apiVersion\":\"remold.io/v1beta1\",\"kind\":\"ModRule\","
                        + "\"metadata\":{\"name\":\"r1\",\"namespace\":\"team-a\"},\"spec\":" + spec + "}");
    }

    @Test
    void modRuleThatDoesNotReadIsRefusedNamingTheField() {
        JsonObject response = response(server.post("/validate-modrule", "application/json",
                modRule("{\"type\":\"Sideways\",\"match\":[{\"select\":\"$.kind\"}]}")));
        assertThat(response.getBoolean("allowed"), is(false));
        assertThat(response.getJsonObject("status").getInt("code"), is(422));
        assertThat(response.getJsonObject("status").getString("message"), containsString("spec.type"));
    }

    /** An AdmissionReview of a cluster-scoped Gatekeeper Assign with this spec. */
    static String assign(String spec) {
        return modRule(spec).replace("\"apiVersion\":\"remold.io/v1beta1\",\"kind\":\"ModRule\","
                + "\"metadata\":{\"name\":\"r1\",\"namespace\":\"team-a\"}",
                "\"apiVersion\":\"mutations.gatekeeper.sh/v1\",\"kind\":\"Assign\",\"metadata\":{\"name\":\"a1\"}");
    }

    @Test
    void gatekeeperMutatorsAreValidatedWithGatekeepersReason() {
        String applyTo = "\"applyTo\":[{\"groups\":[\"\"],\"kinds\":[\"Pod\"],\"versions\":[\"v1\"]}],";
        JsonObject refused = response(server.post("/validate-modrule", "application/json", assign("{" + applyTo
                + "\"location\":\"metadata.labels.team\",\"parameters\":{\"assign\":{\"value\":\"x\"}}}")));
        assertThat(refused.getBoolean("allowed"), is(false));
        assertThat(refused.getJsonObject("status").getInt("code"), is(422));
        assertThat(refused.getJsonObject("status").getString("message"),
                startsWith("Assign team-a/a1 is invalid: spec.location: "));
        JsonObject admitted = response(server.post("/validate-modrule", "application/json", assign("{" + applyTo
                + "\"location\":\"spec.priority\",\"parameters\":{\"assign\":{\"value\":7}}}")));
        assertThat(admitted.getBoolean("allowed"), is(true));
    }

    /** An AdmissionReview of a kinitiras policy of this kind, apiVersion policy.kcloudlabs.io/v1alpha1. */
    static String kinitirasPolicy(String kind, String spec) {
        return modRule(spec).replace("\"apiVersion\":\"remold.io/v1beta1\",\"kind\":\"ModRule\",",
                "\"apiVersion\":\"policy.kcloudlabs.io/v1alpha1\",\"kind\":\"" + kind + "\",");
    }

    @Test
    void kinitirasPoliciesThatCannotRunAreRefusedNamingTheFieldAndCuesMessage() {
        JsonObject badCue = response(server.post("/validate-modrule", "application/json", kinitirasPolicy(
                "OverridePolicy", "{\"overrideRules\":[{\"overriders\":{\"cue\":\"patches: [\\n{op: \\\"add\\\"\"}}]}")));
        assertThat(badCue.getBoolean("allowed"), is(false));
        assertThat(badCue.getJsonObject("status").getInt("code"), is(422));
        String cueMessage = badCue.getJsonObject("status").getString("message");
        assertThat(cueMessage, containsString("OverridePolicy"));
        assertThat(cueMessage, containsString("spec.overrideRules[0].overriders.cue"));
        assertThat(cueMessage, matchesPattern("(?s).*\\(at 2:\\d+\\).*"));

        JsonObject badTemplate = response(server.post("/validate-modrule", "application/json", kinitirasPolicy(
                "ClusterValidatePolicy", "{\"validateRules\":[{\"template\":{\"type\":\"sideways\"}}]}")));
        assertThat(badTemplate.getBoolean("allowed"), is(false));
        assertThat(badTemplate.getJsonObject("status").getInt("code"), is(422));
        assertThat(badTemplate.getJsonObject("status").getString("message"),
                containsString("spec.validateRules[0].template.type: Unsupported value: \"sideways\""));

        JsonObject admitted = response(server.post("/validate-modrule", "application/json", kinitirasPolicy(
                "OverridePolicy", "{\"overrideRules\":[{\"overriders\":{\"cue\":\"patches: []\"}}]}")));
        assertThat(admitted.getBoolean("allowed"), is(true));
    }

    @Test
    void providersAreValidatedNamingTheField() {
        String provider = modRule("{\"url\":\"http://mirror.tools.svc/lookup\"}").replace(
                "\"kind\":\"ModRule\",\"metadata\":{\"name\":\"r1\",\"namespace\":\"team-a\"}",
                "\"kind\":\"Provider\",\"metadata\":{\"name\":\"mirror\"}");
        JsonObject refused = response(server.post("/validate-modrule", "application/json", provider));
        assertThat(refused.getBoolean("allowed"), is(false));
        assertThat(refused.getJsonObject("status").getInt("code"), is(422));
        assertThat(refused.getJsonObject("status").getString("message"),
                startsWith("Provider team-a/mirror: spec.url: only https:// URLs are allowed"));
        JsonObject admitted = response(server.post("/validate-modrule", "application/json",
                provider.replace("http://", "https://")));
        assertThat(admitted.getBoolean("allowed"), is(true));
    }

    @Test
    void modRuleThatDoesNotCompileIsRefusedNamingTheFieldAndPosition() {
        JsonObject response = response(server.post("/validate-modrule", "application/json",
                modRule("{\"type\":\"Reject\",\"match\":[{\"select\":\"$.kind\"},"
                        + "{\"select\":\"$.spec.containers[?(@.name == \"}]}")));
        assertThat(response.getBoolean("allowed"), is(false));
        assertThat(response.getJsonObject("status").getInt("code"), is(422));
        assertThat(response.getJsonObject("status").getString("message"),
                startsWith("ModRule team-a/r1 is invalid: spec.match[1].select (at "));
    }

    @Test
    void validModRulesOfBothApiVersionsAreAdmitted() {
        String spec = "{\"type\":\"Reject\",\"match\":[{\"select\":\"$.kind\",\"matchValue\":\"Pod\"}]}";
        for (String apiVersion : List.of("remold.io/v1beta1", "api.kubemod.io/v1beta1")) {
            JsonObject response = response(server.post("/validate-modrule", "application/json",
                    modRule(spec).replace("remold.io/v1beta1", apiVersion)));
            assertThat(apiVersion, response.getBoolean("allowed"), is(true));
        }
    }

    @Test
    void metricsCountRequestsByEndpointAndOutcome() {
        server.store.synced();
        server.post("/noop", "application/json", review("n1", "CREATE", ""));
        server.post("/mutate", "application/json", review("n2", "CREATE", ""));
        server.post("/mutate", "text/plain", "{}");
        HttpResponse<String> http = server.getAdmin("/metrics");
        assertThat(http.statusCode(), is(200));
        assertThat(http.headers().firstValue("Content-Type").orElse(""), containsString("text/plain"));
        String text = http.body();
        assertThat(text, containsString("remold_requests_total{endpoint=\"/noop\",outcome=\"allowed\"} 1\n"));
        assertThat(text, containsString("remold_requests_total{endpoint=\"/mutate\",outcome=\"allowed\"} 1\n"));
        assertThat(text, containsString("remold_requests_total{endpoint=\"/mutate\",outcome=\"bad_request\"} 1\n"));
        assertThat(text, containsString("remold_request_duration_seconds_count{endpoint=\"/mutate\"} 2\n"));
        assertThat(text, containsString("remold_request_duration_seconds_bucket{endpoint=\"/mutate\",le=\"+Inf\"} 2\n"));
        assertThat(text, containsString("remold_rules_synced 1\n"));
        assertThat(text, containsString("remold_rules 0\n"));
    }
}

package io.remold.server.external;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.remold.api.AllowedUrls;
import io.remold.kinitiras.HttpAnswers;
import io.remold.kinitiras.HttpCall;
import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.server.TestCertificates;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * kinitiras http references called over real HTTPS on loopback, through the Providers' client: what is sent, what
 * fails the policy and how, the request's budget, and the breaker of one allowed prefix.
 */
class HttpReferencesTest {
    @TempDir
    static Path dir;
    private static final ExecutorService THREADS = Executors.newVirtualThreadPerTaskExecutor();
    /** Released when the tests end: what {@code /api/slow} waits for. */
    private static final CountDownLatch RELEASE = new CountDownLatch(1);
    private static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();
    private static HttpsServer server;
    private static SSLContext trust;

    @BeforeAll
    static void start() throws Exception {
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(TestCertificates.serverContext(dir)));
        server.setExecutor(THREADS);
        server.createContext("/", HttpReferencesTest::handle);
        server.start();
        trust = trusting(dir.resolve("ca.crt"));
    }

    @AfterAll
    static void stop() {
        RELEASE.countDown();
        server.stop(0);
        THREADS.shutdownNow();
    }

    private static String base() {
        return "https://localhost:" + server.getAddress().getPort();
    }

    /** As its path says: echo, slow, huge, redirect, notJson, hugeExponent, status-NNN; each call counted by path. */
    private static void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            String path = exchange.getRequestURI().getPath();
            CALLS.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
            byte[] body = in.readAllBytes();
            switch (path.substring(path.lastIndexOf('/') + 1)) {
                case "echo" -> send(exchange, 200, Json.createObjectBuilder()
                        .add("method", exchange.getRequestMethod())
                        .add("query", String.valueOf(exchange.getRequestURI().getRawQuery()))
                        .add("team", String.valueOf(exchange.getRequestHeaders().getFirst("X-Team")))
                        .add("authorization", String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")))
                        .add("body", new String(body, StandardCharsets.UTF_8)).build().toString());
                case "slow" -> {
                    try {
                        RELEASE.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    send(exchange, 200, "{}");
                }
                case "huge" -> send(exchange, 200, "\"" + "x".repeat(Exchanges.MAX_BODY_BYTES) + "\"");
                case "redirect" -> {
                    exchange.getResponseHeaders().add("Location", base() + "/api/echo");
                    send(exchange, 302, "{}");
                }
                case "notJson" -> send(exchange, 200, "tier: gold");
                case "hugeExponent" -> send(exchange, 200, "{\"tier\": 1E99999999999}");
                default -> send(exchange, Integer.parseInt(path.substring(path.lastIndexOf('-') + 1)),
                        "{\"error\":true}");
            }
        }
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        } catch (IOException e) {
            // the client stopped reading (a body past its cap)
        }
    }

    private static SSLContext trusting(Path ca) throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            store.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }

    /**
     * The references of a server allowing {@code /api} of the test service; a call may take 10 s rather than 1 s, as
     * this machine may be loaded (a test of the bound gives a shorter budget).
     */
    private static HttpAnswers references(HttpsProviders providers) {
        return providers.httpReferences(AllowedUrls.parse(List.of(base() + "/api")), Duration.ofSeconds(10), trust);
    }

    private static HttpCall call(String json) throws PolicyEvaluationException {
        return HttpCall.of(Json.createReader(new java.io.StringReader(json.replace('\'', '"')
                .replace("BASE", base()))).readObject());
    }

    private static long inSeconds(int seconds) {
        return System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    }

    @Test
    void anAllowedReferenceIsCalledAsKinitirasCallsIt() throws Exception {
        try (var providers = new HttpsProviders()) {
            JsonObject answer = references(providers).answer(call("{'url':'BASE/api/echo','method':'POST',"
                    + "'params':{'name':'web 1'},'header':{'X-Team':'a'},'auth':{'staticToken':'t0k'},"
                    + "'body':{'ask':[1]}}"), inSeconds(30)).asJsonObject();
            assertThat(answer.toString(), is("{\"method\":\"POST\",\"query\":\"name=web+1\",\"team\":\"a\","
                    + "\"authorization\":\"Bearer t0k\",\"body\":\"{\\\"ask\\\":[1]}\"}"));
        }
    }

    /** Path, then the policy's failure after {@code http valueRef URL: }. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            /api/status-404 | the service answered HTTP 404
            /api/status-503 | the service answered HTTP 503
            /api/notJson    | the answer is not JSON
            /api/hugeExponent | the answer is not JSON
            /api/redirect   | the service answered HTTP 302
            /api/huge       | call to https://localhost:PORT failed: the answer is larger than 1024 KiB
            """)
    void anAnswerThatCannotBeUsedFailsThePolicyNamingTheUrl(String path, String why) throws Exception {
        try (var providers = new HttpsProviders()) {
            String url = base() + path;
            var e = assertThrows(PolicyEvaluationException.class,
                    () -> references(providers).answer(call("{'url':'" + url + "'}"), inSeconds(30)));
            assertThat(e.getMessage(), is("http valueRef " + url + ": "
                    + why.replace("PORT", String.valueOf(server.getAddress().getPort()))));
        }
    }

    @Test
    void aSlowServiceFailsThePolicyWithinTheRequestsBudgetAndASpentBudgetCallsNothing() throws Exception {
        try (var providers = new HttpsProviders()) {
            HttpAnswers references = references(providers);
            long budget = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            var slow = assertThrows(PolicyEvaluationException.class,
                    () -> references.answer(call("{'url':'BASE/api/slow'}"), budget));
            // what was left of the request's 2 s, not the 10 s a call may take
            assertThat(slow.getMessage(), matchesPattern("http valueRef https://localhost:\\d+/api/slow: no answer"
                    + " within 1?\\d{1,3}ms"));

            int before = CALLS.getOrDefault("/api/echo", new AtomicInteger()).get();
            var spent = assertThrows(PolicyEvaluationException.class,
                    () -> references.answer(call("{'url':'BASE/api/echo'}"), System.nanoTime() - 1));
            assertThat(spent.getMessage(), matchesPattern(".*: not called: the request budget is spent"));
            assertThat(CALLS.getOrDefault("/api/echo", new AtomicInteger()).get(), is(before));
        }
    }

    @Test
    void fiveFailuresOfTheServiceOpenItsBreakerUntilAProbeAnswers() throws Exception {
        var clock = new AtomicLong();
        try (var providers = new HttpsProviders(clock::get)) {
            HttpAnswers references = references(providers);
            for (int i = 0; i < Breaker.FAILURES_TO_OPEN; i++) {
                var failed = assertThrows(PolicyEvaluationException.class,
                        () -> references.answer(call("{'url':'BASE/api/breaker-500'}"), inSeconds(30)));
                assertThat(failed.getMessage(), matchesPattern(".*: the service answered HTTP 500"));
            }
            var refused = assertThrows(PolicyEvaluationException.class,
                    () -> references.answer(call("{'url':'BASE/api/echo'}"), inSeconds(30)));
            assertThat(refused.getMessage(), matchesPattern(".*/api/echo: service failing: 5 calls in a row failed;"
                    + " retried after 10s"));
            assertThat(CALLS.get("/api/breaker-500").get(), is(Breaker.FAILURES_TO_OPEN));

            clock.addAndGet(ProviderClient.MAX_FAILURE_TTL.toNanos());
            assertThat(references.answer(call("{'url':'BASE/api/echo'}"), inSeconds(30)).asJsonObject()
                    .getString("method"), is("GET"));
        }
    }

    @Test
    void answersOfTheReferenceItselfSuchAs404DoNotOpenTheBreaker() throws Exception {
        try (var providers = new HttpsProviders()) {
            HttpAnswers references = references(providers);
            for (int i = 0; i <= Breaker.FAILURES_TO_OPEN; i++) {
                assertThrows(PolicyEvaluationException.class,
                        () -> references.answer(call("{'url':'BASE/api/missing-404'}"), inSeconds(30)));
            }
            assertThat(CALLS.get("/api/missing-404").get(), is(Breaker.FAILURES_TO_OPEN + 1));
            assertThat(references.answer(call("{'url':'BASE/api/echo'}"), inSeconds(30)).asJsonObject()
                    .getString("method"), is("GET"));
        }
    }

    @Test
    void aUrlUnderNoPrefixIsNeverCalledAndNoPrefixAllowedRefusesAll() throws Exception {
        try (var providers = new HttpsProviders()) {
            var e = assertThrows(PolicyEvaluationException.class,
                    () -> references(providers).answer(call("{'url':'BASE/apix/echo'}"), inSeconds(30)));
            assertThat(e.getMessage(), matchesPattern("http valueRef https://localhost:\\d+/apix/echo: not under a URL"
                    + " prefix the server allows \\(--allow-http-ref https://localhost:\\d+/api\\)"));
            assertThat(CALLS.containsKey("/apix/echo"), is(false));
            assertThat(providers.httpReferences(AllowedUrls.NONE), is(HttpAnswers.REFUSED));
        }
    }
}

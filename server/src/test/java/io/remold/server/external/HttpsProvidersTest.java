package io.remold.server.external;

import io.remold.api.Provider;
import io.remold.api.YamlJson;
import io.remold.templating.ExternalData;
import io.remold.templating.ExternalData.Answer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.startsWith;

/** The HTTPS runtime of external data against a real HTTPS provider in each of its modes. */
class HttpsProvidersTest {
    /** What a fault may take beyond the provider's timeout: scheduling, not waiting. */
    private static final Duration MARGIN = Duration.ofSeconds(2);

    @TempDir
    static Path dir;
    private static TestProvider server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestProvider(dir);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static Provider provider(String name, String mode, String extra) {
        String yaml = "{apiVersion: remold.io/v1beta1, kind: Provider, metadata: {name: " + name + "}, spec: {url: '"
                + server.url(mode) + "', caBundle: " + server.caBundle + (extra.isEmpty() ? "" : ", " + extra) + "}}";
        return Provider.fromJson((JsonObject) YamlJson.parse(yaml, "test").getFirst(), "Provider " + name);
    }

    private static HttpsProviders providers(Provider... providers) {
        var out = new HttpsProviders();
        out.use(List.of(providers));
        return out;
    }

    @Test
    void valuesArriveAndAreCached() {
        try (var providers = providers(provider("p", "good", ""))) {
            Map<String, Answer> first = providers.fetch("p", List.of("v1", "v2", "v1"));
            assertThat(first.keySet(), contains("v1", "v2"));
            assertThat(first.get("v1").value(), equalTo(Json.createValue("value-of-v1")));
            assertThat(first.get("v2").source(), equalTo(server.url("good")));
            Map<String, Answer> again = providers.fetch("p", List.of("v1"));
            assertThat(again.get("v1").value(), equalTo(Json.createValue("value-of-v1")));
            assertThat(again.get("v1").source(), equalTo("cache"));
            assertThat(server.asked("v1"), is(1));
            var metrics = new StringBuilder();
            providers.writeMetrics(metrics);
            assertThat(metrics.toString(), containsString("remold_external_calls_total{provider=\"p\"} 1\n"));
            assertThat(metrics.toString(), containsString("remold_external_cache_hits_total{provider=\"p\"} 1\n"));
        }
    }

    @Test
    void oneCallPerKeyUnderConcurrentFetches() throws Exception {
        try (var providers = providers(provider("p", "lagging", "timeout: 3s"));
             var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            var fetches = new ArrayList<CompletableFuture<Answer>>();
            for (int i = 0; i < 50; i++) {
                fetches.add(CompletableFuture.supplyAsync(() -> providers.fetch("p", List.of("shared")).get("shared"),
                        threads));
            }
            for (CompletableFuture<Answer> fetch : fetches) {
                assertThat(fetch.get().value(), equalTo(Json.createValue("value-of-shared")));
            }
            assertThat(server.asked("shared"), is(1));
        }
    }

    @Test
    void missingKeysGoInBatchesOfAHundred() {
        try (var providers = providers(provider("p", "good", ""))) {
            List<String> keys = IntStream.range(0, 250).mapToObj(i -> "batch" + i).toList();
            int before = server.batchSizes.size();
            Map<String, Answer> answers = providers.fetch("p", keys);
            assertThat(answers.values().stream().filter(Answer::failed).toList(), hasSize(0));
            List<Integer> sizes = server.batchSizes.subList(before, server.batchSizes.size());
            assertThat(sizes, hasSize(3));
            assertThat(sizes, everyItem(lessThanOrEqualTo(100)));
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            slow        | no answer within 500ms
            failing     | the provider answered HTTP 500
            huge        | larger than 1024 KiB
            malformed   | malformed answer
            systemError | provider's system error: database is down
            missing     | the answer has no item for key "fault-missing"
            """)
    void faultsFailEveryKeyInTimeAndDelayNoOne(String mode, String why) throws Exception {
        try (var providers = providers(provider("bad", mode, "timeout: 500ms"), provider("good", "good", ""));
             var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            long start = System.nanoTime();
            var faulty = CompletableFuture.supplyAsync(() -> providers.fetch("bad", List.of("fault-" + mode)),
                    threads);
            Answer good = providers.fetch("good", List.of("meanwhile-" + mode)).get("meanwhile-" + mode);
            assertThat(good.value(), equalTo(Json.createValue("value-of-meanwhile-" + mode)));
            Answer answer = faulty.get().get("fault-" + mode);
            assertThat(Duration.ofNanos(System.nanoTime() - start), lessThan(Duration.ofMillis(500).plus(MARGIN)));
            assertThat(answer.failed(), is(true));
            assertThat(answer.error(), containsString(why));
            assertThat(answer.failOpen(), is(false));
            // remembered (for at most 10 s), or still being given up on: not asked again
            Answer again = providers.fetch("bad", List.of("fault-" + mode)).get("fault-" + mode);
            assertThat(again.error(), containsString(why));
            assertThat(server.asked("fault-" + mode), is(1));
        }
    }

    @Test
    void slowProvidersHoldOnlyTheirOwnCallers() throws Exception {
        try (var providers = providers(provider("slow", "slow", "timeout: 3s"), provider("good", "good", ""));
             var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            var stuck = new ArrayList<CompletableFuture<Map<String, Answer>>>();
            for (int i = 0; i < 20; i++) {
                String key = "stuck-" + i;
                stuck.add(CompletableFuture.supplyAsync(() -> providers.fetch("slow", List.of(key)), threads));
            }
            Answer good = providers.fetch("good", List.of("beside-the-stuck")).get("beside-the-stuck");
            assertThat(good.value(), equalTo(Json.createValue("value-of-beside-the-stuck")));
            assertThat("the good provider answered while the slow one still held its callers",
                    stuck.stream().filter(CompletableFuture::isDone).toList(), hasSize(0));
            for (var fetch : stuck) {
                assertThat(fetch.get().values().iterator().next().error(), equalTo("no answer within 3s"));
            }
        }
    }

    @Test
    void perKeyErrorsFailOnlyTheirKey() {
        try (var providers = providers(provider("p", "good", "failurePolicy: Ignore"))) {
            Map<String, Answer> answers = providers.fetch("p", List.of("bad-key", "fine-key"));
            assertThat(answers.get("bad-key").error(), equalTo("unknown bad-key"));
            assertThat(answers.get("bad-key").failOpen(), is(true));
            assertThat(answers.get("fine-key").value(), equalTo(Json.createValue("value-of-fine-key")));
        }
    }

    @Test
    void withoutCaBundleTheJvmTrustStoreDecides() {
        Provider trusted = provider("p", "good", "");
        Provider untrusted = new Provider("p", trusted.url(), List.of(), trusted.timeout(), trusted.cacheTTL(),
                trusted.maxEntries(), trusted.failurePolicy(), List.of());
        try (var providers = providers(untrusted)) {
            Answer answer = providers.fetch("p", List.of("tls")).get("tls");
            assertThat(answer.error(), startsWith("TLS with " + server.url("good") + " failed"));
        }
    }

    @Test
    void aProviderThatIsDownFailsAtOnce() throws Exception {
        Provider up = provider("down", "good", "");
        Provider down;
        try (var socket = new java.net.ServerSocket(0)) { // a port nothing listens on once closed
            down = new Provider("down", java.net.URI.create("https://127.0.0.1:" + socket.getLocalPort() + "/x"),
                    up.caCertificates(), up.timeout(), up.cacheTTL(), up.maxEntries(), up.failurePolicy(), List.of());
        }
        try (var providers = providers(down)) {
            Answer answer = providers.fetch("down", List.of("k")).get("k");
            assertThat(answer.error(), startsWith("cannot connect to https://127.0.0.1:"));
        }
    }

    @Test
    void failuresAreForgottenAfterTheirTtlSoAProviderRecovers() throws Exception {
        try (var providers = providers(provider("p", "failing", "cacheTTL: 1s"))) {
            providers.fetch("p", List.of("recover"));
            providers.fetch("p", List.of("recover"));
            assertThat(server.asked("recover"), is(1));
            Thread.sleep(1200); // past min(cacheTTL, 10s)
            providers.fetch("p", List.of("recover"));
            assertThat(server.asked("recover"), is(2));
        }
    }

    @Test
    void leastRecentlyUsedKeysAreDropped() {
        try (var providers = providers(provider("p", "good", "maxEntries: 2"))) {
            providers.fetch("p", List.of("lru-a"));
            providers.fetch("p", List.of("lru-b"));
            providers.fetch("p", List.of("lru-a")); // a is now the most recently used
            providers.fetch("p", List.of("lru-c")); // drops b
            providers.fetch("p", List.of("lru-a"));
            providers.fetch("p", List.of("lru-b"));
            assertThat(server.asked("lru-a"), is(1));
            assertThat(server.asked("lru-b"), is(2));
        }
    }

    @Test
    void longKeysAreNotAsked() {
        try (var providers = providers(provider("p", "good", ""))) {
            String key = "k".repeat(4097);
            assertThat(providers.fetch("p", List.of(key)).get(key).error(), containsString("longer than 4096"));
            assertThat(server.asked(key), is(0));
        }
    }

    @Test
    void aRequestWaitsAtMostThreeSecondsInTotal() {
        try (var providers = providers(provider("slow1", "slow", "timeout: 2s"),
                provider("slow2", "slow", "timeout: 2s"))) {
            ExternalData request = providers.forRequest();
            long start = System.nanoTime();
            Answer first = request.fetch("slow1", List.of("budget-1")).get("budget-1");
            Answer second = request.fetch("slow2", List.of("budget-2")).get("budget-2");
            assertThat(Duration.ofNanos(System.nanoTime() - start), lessThan(Duration.ofSeconds(3).plus(MARGIN)));
            assertThat(first.error(), equalTo("no answer within 2s"));
            assertThat(second.error(), equalTo("no answer within the request's 3s budget for external data"));
            assertThat(request.explained(), contains(
                    "external slow1 \"budget-1\": failed: no answer within 2s (" + server.url("slow") + ")",
                    "external slow2 \"budget-2\": failed: no answer within the request's 3s budget for external data ("
                            + server.url("slow") + ")"));
        }
    }

    /**
     * A namespaced caller the Provider's spec.namespaces does not name is refused, fail closed whatever the failure
     * policy, without a call or a cache entry; by name, by "*", and callers in the system namespace are served.
     * {@code view}: {@code caller}, the server's own view for a rule; {@code request}, a request's view for one.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', useHeadersInDisplayName = true, textBlock = """
            view    | namespaces | namespace | clusterWide | served
            caller  | []         | a         | false       | false
            request | []         | a         | false       | false
            caller  | [b]        | a         | false       | false
            request | [b, c]     | a         | false       | false
            caller  | [a]        | a         | false       | true
            request | [b, a]     | a         | false       | true
            caller  | ['*']      | a         | false       | true
            request | ['*']      | a         | false       | true
            caller  | []         | system    | true        | true
            request | [b]        | system    | true        | true
            """)
    void namespacedCallersOnlyWhereTheProviderServes(String view, String namespaces, String namespace,
                                                     boolean clusterWide, boolean served) {
        String key = "tenant-" + view + "-" + namespaces.replace("*", "all").replaceAll("\\W", "") + "-" + namespace;
        try (var providers = providers(provider("p", "good", "failurePolicy: Ignore, namespaces: " + namespaces))) {
            ExternalData request = providers.forRequest();
            ExternalData data = view.equals("caller") ? providers.forCaller(namespace, clusterWide)
                    : request.forCaller(namespace, clusterWide);
            Answer answer = data.fetch("p", List.of(key)).get(key);
            if (served) {
                assertThat(answer.value(), equalTo(Json.createValue("value-of-" + key)));
                assertThat(server.asked(key), is(1));
                return;
            }
            assertThat(answer.error(), equalTo("Provider p does not serve rules in namespace " + namespace
                    + " (its spec.namespaces)"));
            assertThat(answer.failOpen(), is(false));
            assertThat(server.asked(key), is(0));
            if (view.equals("request")) { // the refusal is explained in the request's lines
                assertThat(request.explained(), contains("external p \"" + key + "\": failed: Provider p does not"
                        + " serve rules in namespace a (its spec.namespaces) (refused)"));
            }
            // nothing was cached: the provider's own (cluster-wide) callers still get a fresh answer
            Answer fresh = providers.fetch("p", List.of(key)).get(key);
            assertThat(fresh.source(), equalTo(server.url("good")));
            assertThat(server.asked(key), is(1));
        }
    }

    @Test
    void aCallersViewSharesTheRequestsBudget() {
        try (var providers = providers(provider("slow1", "slow", "timeout: 2s, namespaces: [a]"),
                provider("slow2", "slow", "timeout: 2s, namespaces: [a]"))) {
            ExternalData request = providers.forRequest();
            Answer first = request.forCaller("a", false).fetch("slow1", List.of("shared-1")).get("shared-1");
            Answer second = request.forCaller("a", false).fetch("slow2", List.of("shared-2")).get("shared-2");
            assertThat(first.error(), equalTo("no answer within 2s"));
            assertThat(second.error(), equalTo("no answer within the request's 3s budget for external data"));
            assertThat(request.explained(), hasSize(2));
        }
    }

    @Test
    void providersInForceAreReplacedAtOnce() {
        try (var providers = providers(provider("p", "good", ""))) {
            assertThat(providers.fetch("p", List.of("swap")).get("swap").failed(), is(false));
            providers.use(List.of(provider("q", "good", "")));
            Answer gone = providers.fetch("p", List.of("swap")).get("swap");
            assertThat(gone.error(), equalTo("no Provider named \"p\""));
            var metrics = new StringBuilder();
            providers.writeMetrics(metrics);
            assertThat(metrics.toString().contains("provider=\"p\""), is(false));
        }
    }
}

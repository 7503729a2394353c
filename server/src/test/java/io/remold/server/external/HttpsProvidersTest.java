package io.remold.server.external;

import io.remold.api.Provider;
import io.remold.api.YamlJson;
import io.remold.templating.ExternalData.Answer;
import io.remold.templating.ExternalData;
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
import java.util.concurrent.atomic.AtomicLong;
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
    /**
     * What a fault may take beyond the provider's timeout: scheduling, not waiting. Generous, so that a loaded
     * 2-core machine (the {@code huge} case reads its first MiB meanwhile) cannot fail a bound that only guards
     * "never stalls".
     */
    private static final Duration MARGIN = Duration.ofSeconds(5);

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

    /** Providers whose cache and breaker read {@code clock} (nanoseconds), which the test moves by hand. */
    private static HttpsProviders providers(AtomicLong clock, Provider... providers) {
        var out = new HttpsProviders(clock::get);
        out.use(List.of(providers));
        return out;
    }

    /** Waits (without a time bound of its own: the test's timeout is the bound) until the provider saw {@code key}. */
    private static void awaitAsked(String key) {
        while (server.asked(key) == 0) {
            Thread.onSpinWait();
            Thread.yield();
        }
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
            // the call ended: its timeout task is gone, not held (with the exchange) until the timeout
            assertThat(providers.timeoutsScheduled(), is(0));
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

    /**
     * Every fault fails every key of the call, in time; one failed call opens no breaker (a caller could fail one on
     * purpose), so a key not asked yet is still asked. {@code lasts}: the fault takes the whole timeout, so the good provider
     * must have answered while it still ran. ({@code huge} gets 3 s to send its first MiB on a busy machine.)
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            slow          | 500ms | no answer within 500ms                                                   | true
            trickle       | 500ms | no answer within 500ms                                                   | true
            failing       | 500ms | the provider answered HTTP 500                                           | false
            huge          | 3s    | larger than 1024 KiB                                                     | false
            malformed     | 500ms | malformed answer                                                         | false
            systemError   | 500ms | provider's system error: database is down                                | false
            notIdempotent | 500ms | the provider says its answers are not idempotent; Remold caches answers | false
            """)
    void faultsFailEveryKeyInTimeAndDelayNoOne(String mode, String timeout, String why, boolean lasts)
            throws Exception {
        Provider bad = provider("bad", mode, "timeout: " + timeout);
        try (var providers = providers(bad, provider("good", "good", ""));
             var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            long start = System.nanoTime();
            var faulty = CompletableFuture.supplyAsync(() -> providers.fetch("bad", List.of("fault-" + mode)),
                    threads);
            Answer good = providers.fetch("good", List.of("meanwhile-" + mode)).get("meanwhile-" + mode);
            assertThat(good.value(), equalTo(Json.createValue("value-of-meanwhile-" + mode)));
            if (lasts) {
                assertThat("the good provider answered while the faulty one still held its caller", faulty.isDone(),
                        is(false));
            }
            Answer answer = faulty.get().get("fault-" + mode);
            assertThat(Duration.ofNanos(System.nanoTime() - start), lessThan(bad.timeout().plus(MARGIN)));
            assertThat(answer.failed(), is(true));
            assertThat(answer.error(), containsString(why));
            assertThat(answer.failOpen(), is(false));
            // remembered (for at most 10 s), or still being given up on: not asked again
            Answer again = providers.fetch("bad", List.of("fault-" + mode)).get("fault-" + mode);
            assertThat(again.error(), containsString(why));
            assertThat(server.asked("fault-" + mode), is(1));
            // one failed call opens no breaker: a new key is asked (and fails the same way)
            Answer other = providers.fetch("bad", List.of("other-" + mode)).get("other-" + mode);
            assertThat(other.error(), containsString(why));
            assertThat(server.asked("other-" + mode), is(1));
        }
    }

    @Test
    void aKeyMissingFromTheAnswerFailsAloneAndOpensNoBreaker() {
        try (var providers = providers(provider("p", "missing", ""))) {
            Map<String, Answer> answers = providers.fetch("p", List.of("absent-1", "present-1"));
            assertThat(answers.get("absent-1").error(), equalTo("the answer has no item for key \"absent-1\""));
            assertThat(answers.get("present-1").value(), equalTo(Json.createValue("value-of-present-1")));
            Answer next = providers.fetch("p", List.of("present-2")).get("present-2");
            assertThat(next.value(), equalTo(Json.createValue("value-of-present-2")));
            var metrics = new StringBuilder();
            providers.writeMetrics(metrics);
            assertThat(metrics.toString(), containsString("remold_external_failures_total{provider=\"p\"} 0\n"));
        }
    }

    /**
     * Five failed calls in a row open the breaker for min(cacheTTL, 10 s); then one call probes, and a success closes
     * it.
     */
    @Test
    void theBreakerLetsOneProbeThroughAndClosesOnSuccess() {
        var clock = new AtomicLong();
        server.flakyFails = true;
        try (var providers = providers(clock, provider("p", "flaky", ""))) {
            for (int i = 0; i < Breaker.FAILURES_TO_OPEN; i++) {
                assertThat(breakerGauge(providers), containsString("remold_external_breaker_open{provider=\"p\"} 0\n"));
                assertThat(providers.fetch("p", List.of("flaky-f" + i)).get("flaky-f" + i).error(),
                        equalTo("the provider answered HTTP 500"));
            }
            assertThat(breakerGauge(providers), containsString("remold_external_breaker_open{provider=\"p\"} 1\n"));
            clock.addAndGet(Duration.ofMillis(2500).toNanos());
            assertThat(providers.fetch("p", List.of("flaky-2")).get("flaky-2").error(), equalTo(
                    "provider failing: 5 calls in a row failed; retried after 8s"));
            assertThat(server.asked("flaky-2"), is(0));
            server.flakyFails = false;
            clock.addAndGet(Duration.ofMillis(7500).toNanos());
            Answer probe = providers.fetch("p", List.of("flaky-3")).get("flaky-3");
            assertThat(probe.value(), equalTo(Json.createValue("value-of-flaky-3")));
            Answer after = providers.fetch("p", List.of("flaky-2")).get("flaky-2");
            assertThat(after.value(), equalTo(Json.createValue("value-of-flaky-2")));
            assertThat(server.asked("flaky-2"), is(1));
            assertThat(breakerGauge(providers), containsString("remold_external_breaker_open{provider=\"p\"} 0\n"));
        } finally {
            server.flakyFails = false;
        }
    }

    private static String breakerGauge(HttpsProviders providers) {
        var metrics = new StringBuilder();
        providers.writeMetrics(metrics);
        return metrics.toString();
    }

    /**
     * A slow provider holds its own callers only, and at most 8 of its calls are under way: a caller that gets no
     * turn before its deadline fails "provider busy" without a call.
     */
    @Test
    void slowProvidersHoldOnlyTheirOwnCallers() throws Exception {
        try (var providers = providers(provider("slow", "slow", "timeout: 3s"), provider("good", "good", ""));
             var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            // its 3 s end before those of the calls below, which start later
            ExternalData earlier = providers.forRequest();
            providers.fetch("good", List.of("before-the-stuck"));
            var stuck = new ArrayList<CompletableFuture<Map<String, Answer>>>();
            for (int i = 0; i < Exchanges.MAX_CALLS_IN_FLIGHT; i++) {
                String key = "stuck-" + i;
                stuck.add(CompletableFuture.supplyAsync(() -> providers.fetch("slow", List.of(key)), threads));
            }
            for (int i = 0; i < Exchanges.MAX_CALLS_IN_FLIGHT; i++) {
                awaitAsked("stuck-" + i);
            }
            var busy = CompletableFuture.supplyAsync(() -> earlier.fetch("slow", List.of("no-turn")), threads);
            Answer good = providers.fetch("good", List.of("beside-the-stuck")).get("beside-the-stuck");
            assertThat(good.value(), equalTo(Json.createValue("value-of-beside-the-stuck")));
            assertThat("the good provider answered while the slow one still held its callers",
                    stuck.stream().filter(CompletableFuture::isDone).toList(), hasSize(0));
            assertThat(busy.get().get("no-turn").error(), equalTo("provider busy: 8 calls under way"));
            assertThat(server.asked("no-turn"), is(0));
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
    void failuresAreForgottenAfterTheirTtlSoAProviderRecovers() {
        var clock = new AtomicLong();
        try (var providers = providers(clock, provider("p", "failing", "cacheTTL: 1s"))) {
            providers.fetch("p", List.of("recover"));
            providers.fetch("p", List.of("recover"));
            assertThat(server.asked("recover"), is(1));
            for (int i = 1; i < Breaker.FAILURES_TO_OPEN; i++) {
                providers.fetch("p", List.of("recover-" + i));
            }
            assertThat(providers.fetch("p", List.of("recover-other")).get("recover-other").error(),
                    equalTo("provider failing: 5 calls in a row failed; retried after 1s"));
            clock.addAndGet(Duration.ofMillis(999).toNanos());
            providers.fetch("p", List.of("recover"));
            assertThat(server.asked("recover"), is(1));
            clock.addAndGet(Duration.ofMillis(1).toNanos()); // min(cacheTTL, 10s) has passed
            providers.fetch("p", List.of("recover"));
            assertThat(server.asked("recover"), is(2));
            assertThat(server.asked("recover-other"), is(0));
        }
    }

    /** Values and per-key errors hold for the cache TTL, by the provider's clock. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            ttl-value     | 1s  | 999    | 1
            ttl-value-2   | 1s  | 1000   | 2
            bad-ttl-error | 1s  | 999    | 1
            bad-ttl-err-2 | 1s  | 1000   | 2
            object-ttl    | 5m  | 299000 | 1
            """)
    void answersHoldForTheCacheTtl(String key, String ttl, long laterMillis, int asked) {
        var clock = new AtomicLong();
        try (var providers = providers(clock, provider("p", "good", "cacheTTL: " + ttl))) {
            Answer first = providers.fetch("p", List.of(key)).get(key);
            clock.addAndGet(Duration.ofMillis(laterMillis).toNanos());
            Answer second = providers.fetch("p", List.of(key)).get(key);
            assertThat(second.value(), equalTo(first.value()));
            assertThat(second.error(), equalTo(first.error()));
            assertThat(second.source(), equalTo(asked == 1 ? "cache" : server.url("good")));
            assertThat(server.asked(key), is(asked));
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
            ExternalData request = providers.forRequest(true);
            long start = System.nanoTime();
            Answer first = request.fetch("slow1", List.of("budget-1")).get("budget-1");
            Answer second = request.fetch("slow2", List.of("budget-2")).get("budget-2");
            assertThat(Duration.ofNanos(System.nanoTime() - start), lessThan(Duration.ofSeconds(3).plus(MARGIN)));
            assertThat(first.error(), equalTo("no answer within 2s"));
            assertThat(second.error(), equalTo("no answer within the request's 3s budget for external data"));
            // once the budget is spent, a key not asked yet fails at once: no call, no cache entry
            Answer third = request.fetch("slow2", List.of("budget-3")).get("budget-3");
            assertThat(third.error(), equalTo("no answer within the request's 3s budget for external data"));
            assertThat(server.asked("budget-3"), is(0));
            assertThat(request.explained(), contains(
                    "external slow1 \"budget-1\": failed: no answer within 2s (" + server.url("slow") + ")",
                    "external slow2 \"budget-2\": failed: no answer within the request's 3s budget for external data ("
                            + server.url("slow") + ")",
                    "external slow2 \"budget-3\": failed: no answer within the request's 3s budget for external data ("
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
            ExternalData request = providers.forRequest(true);
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
            ExternalData request = providers.forRequest(true);
            Answer first = request.forCaller("a", false).fetch("slow1", List.of("shared-1")).get("shared-1");
            Answer second = request.forCaller("a", false).fetch("slow2", List.of("shared-2")).get("shared-2");
            assertThat(first.error(), equalTo("no answer within 2s"));
            assertThat(second.error(), equalTo("no answer within the request's 3s budget for external data"));
            assertThat(request.explained(), hasSize(2));
        }
    }

    @Test
    void aSpentBudgetStillAnswersFromTheCache() {
        try (var providers = providers(provider("slow", "slow", "timeout: 3s"), provider("good", "good", ""))) {
            providers.fetch("good", List.of("cached-before"));
            ExternalData request = providers.forRequest();
            request.fetch("slow", List.of("spends-it"));
            Map<String, Answer> answers = request.fetch("good", List.of("cached-before", "not-cached"));
            assertThat(answers.get("cached-before").source(), equalTo("cache"));
            assertThat(answers.get("not-cached").error(),
                    equalTo("no answer within the request's 3s budget for external data"));
            assertThat(server.asked("not-cached"), is(0));
            assertThat(providers.fetch("good", List.of("not-cached")).get("not-cached").source(),
                    equalTo(server.url("good")));
        }
    }

    /** Explanation lines are kept only by a view that asks for them, its callers' views included. */
    @ParameterizedTest
    @CsvSource({"false", "true"})
    void requestsExplainOnlyWhenAsked(boolean explain) {
        try (var providers = providers(provider("p", "good", ""))) {
            String key = "explain-" + explain;
            ExternalData request = providers.forRequest(explain);
            request.fetch("p", List.of(key));
            request.forCaller(null, true).fetch("p", List.of(key));
            if (explain) {
                assertThat(request.explained(), contains(
                        "external p \"" + key + "\": \"value-of-" + key + "\" (" + server.url("good") + ")",
                        "external p \"" + key + "\": \"value-of-" + key + "\" (cache)"));
            } else {
                assertThat(request.explained(), hasSize(0));
            }
        }
    }

    /** A key another request is asking is a cache hit for the one that joins it, and explained as one. */
    @Test
    void joiningACallUnderWayIsExplainedAsCache() throws Exception {
        try (var providers = providers(provider("p", "lagging", "timeout: 3s"));
             var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            var first = CompletableFuture.supplyAsync(() -> providers.fetch("p", List.of("joined")), threads);
            awaitAsked("joined");
            ExternalData request = providers.forRequest(true);
            Answer joined = request.fetch("p", List.of("joined")).get("joined");
            assertThat(joined.value(), equalTo(Json.createValue("value-of-joined")));
            assertThat(request.explained(), contains("external p \"joined\": \"value-of-joined\" (cache)"));
            assertThat(first.get().get("joined").source(), equalTo(server.url("lagging")));
            assertThat(server.asked("joined"), is(1));
        }
    }

    /** A value past 64 KiB of JSON fails its key (the others keep theirs); objects come back whole from the cache. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            large-65534-fits   |
            large-65535-over   | value larger than 65536 bytes
            large-100000-over  | value larger than 65536 bytes
            object-cached      |
            """)
    void valuesLargerThanTheCapFailTheirKey(String key, String error) {
        try (var providers = providers(provider("p", "good", ""))) {
            Map<String, Answer> answers = providers.fetch("p", List.of(key, "beside-" + key));
            assertThat(answers.get(key).error(), equalTo(error));
            assertThat(answers.get("beside-" + key).value(), equalTo(Json.createValue("value-of-beside-" + key)));
            Answer again = providers.fetch("p", List.of(key)).get(key);
            assertThat(again.source(), equalTo("cache"));
            assertThat(again.value(), equalTo(answers.get(key).value()));
            assertThat(again.error(), equalTo(error));
        }
    }

    /** Past 8 MiB of cached answers the least recently used go, however many entries maxEntries allows. */
    @Test
    void theCacheIsBoundedInBytes() {
        try (var providers = providers(provider("p", "good", "maxEntries: 100000"))) {
            int perCall = 16; // 16 values of 60 000 characters fit in one 1 MiB answer
            int calls = (int) (ProviderClient.MAX_CACHE_BYTES / (perCall * 60_000L)) + 2;
            for (int call = 0; call < calls; call++) {
                int c = call;
                List<String> keys = IntStream.range(0, perCall).mapToObj(i -> "large-60000-w" + c + "-" + i).toList();
                assertThat(providers.fetch("p", keys).values().stream().filter(Answer::failed).toList(), hasSize(0));
            }
            String eldest = "large-60000-w0-0";
            String newest = "large-60000-w" + (calls - 1) + "-0";
            providers.fetch("p", List.of(newest, eldest));
            assertThat(server.asked(newest), is(1));
            assertThat(server.asked(eldest), is(2));
        }
    }

    @Test
    void oneFetchAsksAtMostAThousandKeys() {
        // The longest timeout: the 1,000 keys asked must all be answered on a loaded machine, too.
        try (var providers = providers(provider("p", "good", "timeout: 3s"))) {
            List<String> keys = IntStream.range(0, ProviderClient.MAX_KEYS_PER_FETCH + 2).mapToObj(i -> "many-" + i)
                    .toList();
            Map<String, Answer> answers = providers.fetch("p", keys);
            assertThat(answers.values().stream().filter(Answer::failed).toList(), hasSize(2));
            assertThat(answers.get("many-1000").error(), equalTo("more than 1000 keys in one fetch"));
            assertThat(answers.get("many-999").value(), equalTo(Json.createValue("value-of-many-999")));
            assertThat(server.asked("many-1001"), is(0));
        }
    }

    /** The provider's certificate must name the host of its URL: a trusted certificate for another name is refused. */
    @Test
    void theProvidersHostNameIsVerified() throws Exception {
        Path otherDir = dir.resolve("other-host");
        try (var other = new TestProvider(otherDir, io.remold.server.TestCertificates.serverContext(otherDir,
                "other.example"))) {
            String yaml = "{apiVersion: remold.io/v1beta1, kind: Provider, metadata: {name: o}, spec: {url: '"
                    + other.url("good") + "', caBundle: " + other.caBundle + "}}";
            Provider misnamed = Provider.fromJson((JsonObject) YamlJson.parse(yaml, "test").getFirst(), "o");
            try (var providers = providers(misnamed)) {
                Answer answer = providers.fetch("o", List.of("host")).get("host");
                assertThat(answer.error(), startsWith("TLS with " + other.url("good") + " failed: "));
                assertThat(answer.error(), containsString("localhost"));
                assertThat(other.asked("host"), is(0));
            }
        }
    }

    /** Of two Providers with one name the later is used; one whose client cannot be built fails its keys alone. */
    @Test
    void duplicateAndUnusableProvidersDoNotBreakTheOthers() {
        Provider good = provider("p", "good", "");
        Provider broken = new Provider("broken", good.url(), good.caCertificates(), Duration.ZERO, good.cacheTTL(),
                good.maxEntries(), Provider.FailurePolicy.Ignore, List.of());
        try (var providers = providers(provider("p", "failing", ""), good, broken)) {
            assertThat(providers.fetch("p", List.of("dup")).get("dup").value(), equalTo(
                    Json.createValue("value-of-dup")));
            Answer answer = providers.fetch("broken", List.of("b")).get("b");
            assertThat(answer.error(), startsWith("Provider broken cannot be used: "));
            assertThat(answer.failOpen(), is(true));
            providers.use(List.of(good, broken)); // and use() goes on working
            providers.use(List.of(good));
            assertThat(providers.fetch("broken", List.of("b")).get("b").error(),
                    equalTo("no Provider named \"broken\""));
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

    /**
     * One caller's keys that fail the provider's calls (any tenant the Provider serves could send them on purpose)
     * open no breaker in four calls, so another caller's good key is still answered; five failed calls in a row do,
     * and the refusal says so in its own words, never with a call's failure (which may echo another caller's key).
     */
    @Test
    void oneCallersFailingKeysDoNotShutOthersOut() {
        var clock = new AtomicLong();
        try (var providers = providers(clock, provider("p", "perKey", "namespaces: ['*']"))) {
            ExternalData tenant = providers.forCaller("tenant-a", false);
            ExternalData other = providers.forCaller("tenant-b", false);
            for (int i = 0; i < Breaker.FAILURES_TO_OPEN - 1; i++) {
                assertThat(tenant.fetch("p", List.of("fail-secret-" + i)).get("fail-secret-" + i).error(),
                        equalTo("the provider answered HTTP 500"));
            }
            assertThat(other.fetch("p", List.of("good-b1")).get("good-b1").value(),
                    equalTo(Json.createValue("value-of-good-b1")));
            for (int i = 0; i < Breaker.FAILURES_TO_OPEN; i++) {
                tenant.fetch("p", List.of("fail-again-" + i));
            }
            Answer refused = other.fetch("p", List.of("good-b2")).get("good-b2");
            assertThat(refused.error(), equalTo("provider failing: 5 calls in a row failed; retried after 10s"));
            assertThat(server.asked("good-b2"), is(0));
        }
    }

    /**
     * While the breaker's probe is under way other fetches are refused without a call, and the probe is one batch:
     * the fetch that probes asks 100 keys, its others are refused as well; the probe's answer closes the breaker.
     */
    @Test
    void theProbeIsOneBatchAndOthersWaitForIt() throws Exception {
        var clock = new AtomicLong();
        server.held = new java.util.concurrent.CountDownLatch(1);
        try (var providers = providers(clock, provider("p", "perKey", "timeout: 3s"));
             var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < Breaker.FAILURES_TO_OPEN; i++) {
                providers.fetch("p", List.of("fail-probe-" + i));
            }
            clock.addAndGet(ProviderClient.MAX_FAILURE_TTL.toNanos());
            var keys = new ArrayList<String>();
            keys.add("held-probe");
            IntStream.range(0, ProviderClient.MAX_KEYS_PER_CALL).forEach(i -> keys.add("probe-" + i));
            var probe = CompletableFuture.supplyAsync(() -> providers.fetch("p", keys), threads);
            awaitAsked("held-probe");
            String refusal = "provider failing: 5 calls in a row failed; retried when the call under way answers";
            assertThat(providers.fetch("p", List.of("during-probe")).get("during-probe").error(), equalTo(refusal));
            server.held.countDown();
            Map<String, Answer> answers = probe.get();
            assertThat(answers.get("held-probe").value(), equalTo(Json.createValue("value-of-held-probe")));
            assertThat(answers.get("probe-98").value(), equalTo(Json.createValue("value-of-probe-98")));
            assertThat(answers.get("probe-99").error(), equalTo(refusal));
            assertThat(server.asked("probe-99"), is(0));
            assertThat(server.asked("during-probe"), is(0));
            assertThat(providers.fetch("p", List.of("during-probe")).get("during-probe").value(),
                    equalTo(Json.createValue("value-of-during-probe")));
        } finally {
            server.held.countDown();
        }
    }

    /**
     * When the caller whose call another joined gets no turn before its own deadline, it fails "provider busy", but
     * the one that joined tries again within its own deadline and gets its answer once a call is free.
     */
    @Test
    void aJoinerOutlivesTheOwnerThatGotNoTurn() throws Exception {
        server.held = new java.util.concurrent.CountDownLatch(1);
        try (var providers = providers(provider("p", "perKey", "timeout: 3s"),
                provider("slow", "slow", "timeout: 1s"));
             var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            // the owner's 3 s budget is a second spent when the calls holding every turn start
            ExternalData owner = providers.forRequest();
            owner.fetch("slow", List.of("spend-a-second"));
            for (int i = 0; i < Exchanges.MAX_CALLS_IN_FLIGHT; i++) {
                String key = "held-turn-" + i;
                CompletableFuture.runAsync(() -> providers.fetch("p", List.of(key)), threads);
                awaitAsked(key);
            }
            var owned = CompletableFuture.supplyAsync(() -> owner.fetch("p", List.of("contested")), threads);
            while (!providers.pending("p", "contested")) {
                Thread.onSpinWait();
                Thread.yield();
            }
            var joiner = CompletableFuture.supplyAsync(() -> providers.fetch("p", List.of("contested")), threads);
            assertThat(owned.get().get("contested").error(), equalTo("provider busy: 8 calls under way"));
            server.held.countDown(); // the turns come free before the joiner's own deadline
            Answer joined = joiner.get().get("contested");
            assertThat(joined.value(), equalTo(Json.createValue("value-of-contested")));
            assertThat(server.asked("contested"), is(1));
        } finally {
            server.held.countDown();
        }
    }

    /** The rule store may still hand Providers over after close: nothing is built, nothing is in force. */
    @Test
    void useAfterCloseDoesNothing() {
        var providers = providers(provider("p", "good", ""));
        providers.close();
        providers.use(List.of(provider("p", "good", "")));
        assertThat(providers.fetch("p", List.of("after-close")).get("after-close").error(),
                equalTo("no Provider named \"p\""));
        assertThat(server.asked("after-close"), is(0));
    }

    /** The cache weighs a text as the JVM keeps it: a byte per Latin-1 character, else two per character. */
    @ParameterizedTest
    @CsvSource({"abc, 3", "é-latin, 7", "日本, 4", "a日, 4"})
    void textsAreWeighedAsTheHeapKeepsThem(String text, long bytes) {
        assertThat(ProviderClient.heapBytes(text), is(bytes));
    }
}

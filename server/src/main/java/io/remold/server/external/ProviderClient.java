package io.remold.server.external;

import io.remold.api.Provider;
import io.remold.templating.ExternalData.Answer;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One Provider in force: its HTTPS client and its cache of answers. Each key has a slot holding the answer to come
 * (single flight: whoever finds a pending slot waits for it rather than asking again) and, once answered, until when
 * the answer holds; slots are kept in LRU order, at most {@code maxEntries}. Calls run on the client's executor; a
 * caller waits on its own thread, at most until its deadline.
 */
final class ProviderClient {
    static final int MAX_BODY_BYTES = 1 << 20;
    static final int MAX_KEYS_PER_CALL = 100;
    static final int MAX_KEY_LENGTH = 4096;
    /** The longest a transport failure is remembered: a dead provider is asked again, and recovers, that soon. */
    static final Duration MAX_FAILURE_TTL = Duration.ofSeconds(10);

    /** One key's answer, pending while its call runs; {@code expiresAt} ({@link System#nanoTime}) set before it completes. */
    private static final class Slot {
        final CompletableFuture<Answer> answer = new CompletableFuture<>();
        volatile long expiresAt;
    }

    final Provider provider;
    private final HttpClient client;
    private final Executor executor;
    private final ProviderCounters counters;
    private final String source;
    private final boolean failOpen;
    private final long failureTtlNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final LinkedHashMap<String, Slot> slots;

    ProviderClient(Provider provider, Executor executor, ProviderCounters counters) {
        this.provider = provider;
        this.executor = executor;
        this.counters = counters;
        this.source = provider.url().toString();
        this.failOpen = provider.failurePolicy() == Provider.FailurePolicy.Ignore;
        this.failureTtlNanos = Math.min(provider.cacheTTL().toNanos(), MAX_FAILURE_TTL.toNanos());
        int maxEntries = provider.maxEntries();
        this.slots = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Slot> eldest) {
                return size() > maxEntries; // a pending slot dropped here still answers whoever waits for it
            }
        };
        this.client = HttpClient.newBuilder().sslContext(sslContext(provider))
                .version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(provider.timeout()).executor(executor).build();
    }

    /**
     * One answer per distinct key, in their order. Keys neither cached nor pending are asked in batched POSTs; then
     * waits until {@code deadline} ({@link System#nanoTime}) for those not answered yet, which fail with {@code late}.
     */
    Map<String, Answer> fetch(Collection<String> keys, long deadline, String late) {
        var answers = new LinkedHashMap<String, Answer>();
        var pending = new LinkedHashMap<String, CompletableFuture<Answer>>();
        var ask = new ArrayList<String>();
        var asked = new ArrayList<Slot>();
        long now = System.nanoTime();
        lock.lock();
        try {
            for (String key : keys) {
                if (answers.containsKey(key) || pending.containsKey(key)) {
                    continue;
                }
                if (key.length() > MAX_KEY_LENGTH) {
                    answers.put(key, Answer.failed("the key is longer than " + MAX_KEY_LENGTH + " characters",
                            failOpen, source));
                    continue;
                }
                Slot slot = slots.get(key);
                if (slot != null && slot.answer.isDone() && now - slot.expiresAt >= 0) {
                    slot = null;
                }
                if (slot == null) {
                    slot = new Slot();
                    slots.put(key, slot);
                    ask.add(key);
                    asked.add(slot);
                } else {
                    counters.hits.increment();
                }
                if (slot.answer.isDone()) {
                    Answer cached = slot.answer.join();
                    answers.put(key, new Answer(cached.value(), cached.error(), cached.failOpen(), "cache"));
                } else {
                    pending.put(key, slot.answer);
                }
            }
        } finally {
            lock.unlock();
        }
        for (int from = 0; from < ask.size(); from += MAX_KEYS_PER_CALL) {
            int to = Math.min(ask.size(), from + MAX_KEYS_PER_CALL);
            call(List.copyOf(ask.subList(from, to)), List.copyOf(asked.subList(from, to)));
        }
        for (Map.Entry<String, CompletableFuture<Answer>> entry : pending.entrySet()) {
            answers.put(entry.getKey(), await(entry.getValue(), deadline, late));
        }
        var ordered = new LinkedHashMap<String, Answer>();
        for (String key : keys) {
            ordered.put(key, answers.get(key));
        }
        return ordered;
    }

    private Answer await(CompletableFuture<Answer> answer, long deadline, String late) {
        try {
            return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return Answer.failed(late, failOpen, source);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Answer.failed("interrupted while waiting for the provider", failOpen, source);
        } catch (ExecutionException e) { // slots complete normally; kept for the compiler
            return Answer.failed(e.getCause().toString(), failOpen, source);
        }
    }

    /** POSTs one batch; its slots are settled when the answer comes, or fail when the timeout cancels the exchange. */
    private void call(List<String> keys, List<Slot> batch) {
        counters.calls.increment();
        CompletableFuture<HttpResponse<byte[]>> sent;
        try {
            HttpRequest request = HttpRequest.newBuilder(provider.url()).timeout(provider.timeout())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(ProviderProtocol.request(keys))).build();
            sent = client.sendAsync(request, CappedBody.handler(MAX_BODY_BYTES));
        } catch (RuntimeException e) { // e.g. the client was shut down by a Provider change meanwhile
            sent = CompletableFuture.failedFuture(e);
        }
        // The request's own timeout ends at the response headers; this bounds the body too (cancel aborts it).
        CompletableFuture<HttpResponse<byte[]>> exchange = sent;
        CompletableFuture.delayedExecutor(provider.timeout().toNanos(), TimeUnit.NANOSECONDS, executor)
                .execute(() -> exchange.cancel(true));
        exchange.whenComplete((response, error) -> {
            try {
                settle(keys, batch, response, error);
            } catch (RuntimeException e) { // a slot left pending would never be asked again
                long expiresAt = System.nanoTime() + failureTtlNanos;
                for (Slot slot : batch) {
                    if (!slot.answer.isDone()) {
                        slot.expiresAt = expiresAt;
                        slot.answer.complete(Answer.failed("reading the answer failed: " + e, failOpen, source));
                    }
                }
            }
        });
    }

    private void settle(List<String> keys, List<Slot> batch, HttpResponse<byte[]> response, Throwable error) {
        String failure = null;
        Map<String, ProviderProtocol.Item> items = Map.of();
        if (error != null) {
            failure = describe(error);
        } else if (response.statusCode() / 100 != 2) {
            failure = "the provider answered HTTP " + response.statusCode();
        } else {
            try {
                items = ProviderProtocol.response(response.body());
            } catch (ProviderProtocol.Refused e) {
                failure = e.getMessage();
            }
            for (int i = 0; failure == null && i < keys.size(); i++) {
                if (!items.containsKey(keys.get(i))) {
                    failure = "the answer has no item for key " + jsonString(keys.get(i));
                }
            }
        }
        if (failure != null) {
            counters.failures.increment();
        }
        long answeredAt = System.nanoTime();
        for (int i = 0; i < keys.size(); i++) {
            Slot slot = batch.get(i);
            Answer answer;
            if (failure != null) {
                answer = Answer.failed(failure, failOpen, source);
                slot.expiresAt = answeredAt + failureTtlNanos;
            } else {
                ProviderProtocol.Item item = items.get(keys.get(i));
                answer = item.error() != null ? Answer.failed(item.error(), failOpen, source)
                        : new Answer(item.value(), null, failOpen, source);
                slot.expiresAt = answeredAt + provider.cacheTTL().toNanos();
            }
            slot.answer.complete(answer);
        }
    }

    private String describe(Throwable error) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLException tls) {
                return "TLS with " + source + " failed: " + message(tls);
            }
        }
        return switch (e) {
            case CancellationException c -> "no answer within " + text(provider.timeout());
            case HttpTimeoutException t -> "no answer within " + text(provider.timeout());
            case ConnectException c -> "cannot connect to " + source + ": " + message(c);
            case IOException io -> "call to " + source + " failed: " + message(io);
            default -> "call to " + source + " failed: " + e;
        };
    }

    private static String message(Throwable e) {
        Throwable root = e;
        while (root.getMessage() == null && root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    /** {@code 500ms}, {@code 2s}: how Provider manifests write a duration. */
    static String text(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    static String jsonString(String text) {
        return ProviderProtocol.JSON.createValue(text).toString();
    }

    /** Lets calls under way finish; new calls fail at once. */
    void shutdown() {
        client.shutdown();
    }

    void shutdownNow() {
        client.shutdownNow();
    }

    private static SSLContext sslContext(Provider provider) {
        try {
            if (provider.caCertificates().isEmpty()) {
                return SSLContext.getDefault();
            }
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            for (int i = 0; i < provider.caCertificates().size(); i++) {
                trust.setCertificateEntry("ca" + i, provider.caCertificates().get(i));
            }
            var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("Provider " + provider.name() + ": cannot set up TLS: " + e, e);
        }
    }
}

package io.remold.server.external;

import io.remold.api.Provider;
import io.remold.templating.ExternalData;
import io.remold.templating.ExternalData.Answer;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.StringReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * One Provider in force: its HTTPS client, its cache of answers and its circuit breaker. Each key has a slot holding
 * the answer to come (single flight: whoever finds a pending slot waits for it rather than asking again) and, once
 * answered, the answer and until when it holds; slots are kept in LRU order, at most {@code maxEntries} and
 * {@link #MAX_CACHE_BYTES}. Calls run on the client's executor, at most {@link Exchanges#MAX_CALLS_IN_FLIGHT} at
 * once; a caller waits on its own thread, at most until its deadline. Deadlines are {@link System#nanoTime}; cache and
 * breaker times are {@code clock}'s (the same in production, a hand-moved clock in tests).
 */
final class ProviderClient {
    static final int MAX_KEYS_PER_CALL = 100;
    /** Most distinct keys one fetch asks about (the rest fail): ten POSTs, so one rule cannot queue thousands. */
    static final int MAX_KEYS_PER_FETCH = 1000;
    /**
     * Largest value kept, serialized as JSON: answers are names, digests, small objects; a 1 MiB array would parse
     * to about 17 MiB of objects. A larger value fails its key.
     */
    static final int MAX_VALUE_BYTES = 64 * 1024;
    /**
     * Most a Provider's cache may hold (serialized values and errors, keys, {@link #ENTRY_OVERHEAD_BYTES} each),
     * whatever {@code maxEntries} allows (100 000 entries of 64 KiB would be 6 GiB): 8 MiB keeps even a dozen
     * Providers well inside the server's heap. Objects and arrays are kept serialized and parsed again on a hit, so
     * the weight is what they take: a text is weighed as the JVM stores it, a byte per character when it is all
     * Latin-1, else two ({@link #heapBytes}).
     */
    static final long MAX_CACHE_BYTES = 8L << 20;
    /** What an entry costs besides its texts: the map node, the slot, the strings' headers (an estimate). */
    static final int ENTRY_OVERHEAD_BYTES = 128;
    /**
     * The longest a transport failure is remembered, and the breaker stays open: a dead provider is asked again, and
     * recovers, that soon.
     */
    static final Duration MAX_FAILURE_TTL = Duration.ofSeconds(10);
    /**
     * What a call that got no turn answers the waiters that joined it: they try again, within their own deadline
     * (compared by identity; never returned from {@link #fetch}).
     */
    private static final Answer NO_TURN = Answer.failed("no turn", false, "none");

    /** One key's answer, pending while its call runs; every field is guarded by the client's lock. */
    private static final class Slot {
        /** Completed when the call answers; null once settled, so the cache does not hold what waiters got. */
        CompletableFuture<Answer> pending = new CompletableFuture<>();
        boolean settled;
        /** A scalar value as it is, an object or array as its JSON text, or the error; one of them. */
        JsonValue value;
        String json;
        String error;
        long expiresAt;
        long weight;
    }

    /** What a settled call stores for one key ({@code bytes}: its texts' {@link #heapBytes}), and answers its waiters. */
    private record Stored(JsonValue value, String json, String error, long bytes, long ttlNanos, Answer answer) {
    }

    /** A cached answer as read under the lock; an object or array is parsed after. */
    private record Hit(JsonValue value, String json, String error) {
    }

    final Provider provider;
    private final HttpClient client;
    private final Exchanges exchanges;
    private final ProviderCounters counters;
    private final LongSupplier clock;
    private final String source;
    private final boolean failOpen;
    private final long failureTtlNanos;
    private final int maxEntries;
    private final ReentrantLock lock = new ReentrantLock();
    private final LinkedHashMap<String, Slot> slots = new LinkedHashMap<>(16, 0.75f, true);
    private long cachedBytes;
    /** Guarded by {@link #lock}. */
    private final Breaker breaker;

    ProviderClient(Provider provider, Executor executor, ScheduledExecutorService timeouts, LongSupplier clock,
                   ProviderCounters counters) {
        this.provider = provider;
        this.counters = counters;
        this.clock = clock;
        this.source = provider.url().toString();
        this.failOpen = provider.failurePolicy() == Provider.FailurePolicy.Ignore;
        this.failureTtlNanos = Math.min(provider.cacheTTL().toNanos(), MAX_FAILURE_TTL.toNanos());
        this.maxEntries = provider.maxEntries();
        this.breaker = new Breaker(failureTtlNanos, "provider");
        this.client = Exchanges.client(sslContext(provider), provider.timeout(), executor);
        this.exchanges = new Exchanges(client, timeouts);
    }

    /**
     * One answer per distinct key, in their order. Keys neither cached nor pending are asked in batched POSTs, unless
     * {@code deadline} ({@link System#nanoTime}) has passed (they fail with {@code late}) or the breaker is open
     * (they fail with its refusal); then waits until {@code deadline} for those not answered yet, which fail with
     * {@code late}. The breaker's probe is one batch: the fetch that gets it asks its first {@link #MAX_KEYS_PER_CALL}
     * keys, the others fail as refused while it is under way.
     */
    Map<String, Answer> fetch(Collection<String> keys, long deadline, String late) {
        var answers = new LinkedHashMap<String, Answer>();
        var hits = new LinkedHashMap<String, Hit>();
        var waiting = new LinkedHashMap<String, CompletableFuture<Answer>>();
        var joined = new HashSet<String>();
        var ask = new ArrayList<String>();
        var asked = new ArrayList<Slot>();
        boolean spent = deadline - System.nanoTime() <= 0;
        Boolean mayCall = null; // decided once per fetch, on its first key to ask: it may be the breaker's probe
        String refusal = null;
        boolean probe = false;
        int distinct = 0;
        lock.lock();
        try {
            long now = clock.getAsLong();
            for (String key : keys) {
                if (answers.containsKey(key) || hits.containsKey(key) || waiting.containsKey(key)) {
                    continue;
                }
                if (++distinct > MAX_KEYS_PER_FETCH) {
                    answers.put(key, failed("more than " + MAX_KEYS_PER_FETCH + " keys in one fetch"));
                    continue;
                }
                if (key.length() > ExternalData.MAX_KEY_LENGTH) {
                    answers.put(key, failed("the key is longer than " + ExternalData.MAX_KEY_LENGTH + " characters"));
                    continue;
                }
                Slot slot = slots.get(key);
                if (slot != null && slot.settled && now - slot.expiresAt >= 0) {
                    remove(key);
                    slot = null;
                }
                if (slot != null) {
                    counters.hits.increment();
                    if (slot.settled) {
                        hits.put(key, new Hit(slot.value, slot.json, slot.error));
                    } else {
                        waiting.put(key, slot.pending);
                        joined.add(key);
                    }
                    continue;
                }
                if (mayCall == null) {
                    probe = !spent && breaker.isOpen();
                    refusal = spent ? late : breaker.refusal(now);
                    mayCall = refusal == null;
                }
                if (mayCall && probe && ask.size() == MAX_KEYS_PER_CALL) {
                    mayCall = false; // the probe is one batch
                    refusal = breaker.refusal(now);
                }
                if (!mayCall) {
                    answers.put(key, failed(refusal)); // neither asked nor cached
                    continue;
                }
                slot = new Slot();
                slots.put(key, slot);
                ask.add(key);
                asked.add(slot);
                waiting.put(key, slot.pending);
            }
            evict();
        } finally {
            lock.unlock();
        }
        return finish(keys, answers, hits, waiting, joined, ask, asked, deadline, late, probe);
    }

    private Map<String, Answer> finish(Collection<String> keys, Map<String, Answer> answers,
                                       Map<String, Hit> hits, Map<String, CompletableFuture<Answer>> waiting,
                                       Set<String> joined, List<String> ask, List<Slot> asked, long deadline,
                                       String late, boolean probe) {
        for (int from = 0; from < ask.size(); from += MAX_KEYS_PER_CALL) {
            int to = Math.min(ask.size(), from + MAX_KEYS_PER_CALL);
            try {
                call(List.copyOf(ask.subList(from, to)), List.copyOf(asked.subList(from, to)), deadline, probe);
            } catch (Error e) { // the batches not sent yet must not stay pending
                forget(List.copyOf(ask.subList(to, ask.size())), List.copyOf(asked.subList(to, ask.size())),
                        failed("call to " + source + " failed: " + e), false);
                throw e;
            }
        }
        hits.forEach((key, hit) -> answers.put(key, new Answer(hit.json() != null ? parse(hit.json()) : hit.value(),
                hit.error(), failOpen, "cache")));
        for (Map.Entry<String, CompletableFuture<Answer>> entry : waiting.entrySet()) {
            String key = entry.getKey();
            Answer answer = await(entry.getValue(), deadline, late);
            if (answer == NO_TURN) { // our own call got no turn; a call we joined did not, so we try again
                answers.put(key, joined.contains(key) ? fetch(List.of(key), deadline, late).get(key)
                        : failed("provider busy: " + Exchanges.MAX_CALLS_IN_FLIGHT + " calls under way"));
                continue;
            }
            answers.put(key, joined.contains(key) // another request's call: counted a hit
                    ? new Answer(answer.value(), answer.error(), answer.failOpen(), "cache") : answer);
        }
        var ordered = new LinkedHashMap<String, Answer>();
        for (String key : keys) {
            ordered.put(key, answers.get(key));
        }
        return ordered;
    }

    private Answer failed(String error) {
        return Answer.failed(error, failOpen, source);
    }

    private static JsonValue parse(String json) {
        try (var reader = ProviderProtocol.JSON.createReader(new StringReader(json))) {
            return reader.readValue();
        }
    }

    private Answer await(CompletableFuture<Answer> answer, long deadline, String late) {
        try {
            return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return failed(late);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failed("interrupted while waiting for the provider");
        } catch (ExecutionException e) { // slots complete normally; kept for the compiler
            return failed(e.getCause().toString());
        }
    }

    /**
     * POSTs one batch ({@code probe}: the breaker's) once a call is free (before {@code deadline}; else its keys fail,
     * not cached, and whoever joined them tries again); its slots are settled when the answer comes, or fail when the
     * timeout cancels the exchange.
     */
    private void call(List<String> keys, List<Slot> batch, long deadline, boolean probe) {
        Optional<CompletableFuture<HttpResponse<byte[]>>> exchange;
        try {
            exchange = exchanges.send(() -> HttpRequest.newBuilder(provider.url()).timeout(provider.timeout())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(ProviderProtocol.request(keys))).build(),
                    provider.timeout(), deadline);
        } catch (Throwable e) { // e.g. out of memory before the exchange was under way
            forget(keys, batch, failed("call to " + source + " failed: " + e), probe);
            if (e instanceof Error error) {
                throw error;
            }
            return;
        }
        if (exchange.isEmpty()) {
            forget(keys, batch, NO_TURN, probe);
            return;
        }
        counters.calls.increment();
        exchange.get().whenComplete((response, error) -> settle(keys, batch, response, error, probe));
    }

    /**
     * Fails a batch that was never sent: its waiters get {@code answer}, and nothing is cached. Had it been the
     * breaker's probe ({@code probe}), the next call is.
     */
    private void forget(List<String> keys, List<Slot> batch, Answer answer, boolean probe) {
        var waiters = new ArrayList<CompletableFuture<Answer>>();
        lock.lock();
        try {
            if (probe) {
                breaker.probeDropped();
            }
            for (int i = 0; i < keys.size(); i++) {
                Slot slot = batch.get(i);
                if (slots.get(keys.get(i)) == slot) {
                    remove(keys.get(i));
                }
                waiters.add(slot.pending);
            }
        } finally {
            lock.unlock();
        }
        waiters.forEach(waiter -> waiter.complete(answer));
    }

    private void settle(List<String> keys, List<Slot> batch, HttpResponse<byte[]> response, Throwable error,
                        boolean probe) {
        String failure = null;
        List<Stored> stored;
        Error fatal = null;
        try {
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
            }
            stored = stored(keys, items, failure);
        } catch (Throwable e) { // a slot left pending would never be asked again; an Error goes on after
            failure = "reading the answer failed: " + e;
            stored = stored(keys, Map.of(), failure);
            fatal = e instanceof Error err ? err : null;
        }
        var waiters = new ArrayList<CompletableFuture<Answer>>();
        lock.lock();
        try {
            long now = clock.getAsLong();
            if (failure != null) {
                counters.failures.increment();
            }
            breaker.ended(failure != null, probe, now);
            for (int i = 0; i < keys.size(); i++) {
                Slot slot = batch.get(i);
                Stored s = stored.get(i);
                slot.settled = true;
                slot.value = s.value();
                slot.json = s.json();
                slot.error = s.error();
                slot.expiresAt = now + s.ttlNanos();
                waiters.add(slot.pending);
                slot.pending = null;
                if (slots.get(keys.get(i)) == slot) { // not dropped meanwhile
                    slot.weight = ENTRY_OVERHEAD_BYTES + heapBytes(keys.get(i)) + s.bytes();
                    cachedBytes += slot.weight;
                }
            }
            evict();
        } finally {
            lock.unlock();
        }
        for (int i = 0; i < waiters.size(); i++) {
            waiters.get(i).complete(stored.get(i).answer());
        }
        if (fatal != null) {
            throw fatal;
        }
    }

    /** What {@code text} takes in the heap: a byte per character when all are Latin-1 (compact strings), else two. */
    static long heapBytes(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) > 0xFF) {
                return 2L * text.length();
            }
        }
        return text.length();
    }

    /** What each key of a call keeps and answers: the call's failure, the key's error or its value. */
    private List<Stored> stored(List<String> keys, Map<String, ProviderProtocol.Item> items, String failure) {
        var out = new ArrayList<Stored>(keys.size());
        long ttl = provider.cacheTTL().toNanos();
        for (String key : keys) {
            ProviderProtocol.Item item = failure != null ? null : items.get(key);
            String error = failure != null ? failure
                    : item == null ? "the answer has no item for key " + jsonString(key)
                    : item.error();
            if (error != null) { // a missing item is the provider's fault, remembered as briefly as a failure
                long keep = failure != null || item == null ? failureTtlNanos : ttl;
                out.add(new Stored(null, null, error, heapBytes(error), keep, failed(error)));
                continue;
            }
            JsonValue value = item.value();
            String json = value.toString();
            if (json.length() > MAX_VALUE_BYTES / 4 && json.getBytes(StandardCharsets.UTF_8).length > MAX_VALUE_BYTES) {
                String tooLarge = "value larger than " + MAX_VALUE_BYTES + " bytes";
                out.add(new Stored(null, null, tooLarge, heapBytes(tooLarge), ttl, failed(tooLarge)));
                continue;
            }
            Answer answer = new Answer(value, null, failOpen, source);
            long bytes = heapBytes(json);
            out.add(value instanceof JsonStructure ? new Stored(null, json, null, bytes, ttl, answer)
                    : new Stored(value, null, null, bytes, ttl, answer));
        }
        return out;
    }

    private void remove(String key) {
        Slot slot = slots.remove(key);
        if (slot != null) {
            cachedBytes -= slot.weight;
        }
    }

    /** Drops the least recently used slots past {@code maxEntries} or {@link #MAX_CACHE_BYTES}. */
    private void evict() {
        Iterator<Slot> eldest = slots.values().iterator();
        while ((slots.size() > maxEntries || cachedBytes > MAX_CACHE_BYTES) && eldest.hasNext()) {
            Slot slot = eldest.next();
            eldest.remove(); // a pending slot dropped here still answers whoever waits for it
            cachedBytes -= slot.weight;
        }
    }

    /** Whether the breaker refuses calls now (the remold_external_breaker_open gauge). */
    boolean breakerOpen() {
        lock.lock();
        try {
            return breaker.isOpen();
        } finally {
            lock.unlock();
        }
    }

    /** Whether a call for {@code key} is awaited (for tests). */
    boolean pending(String key) {
        lock.lock();
        try {
            Slot slot = slots.get(key);
            return slot != null && !slot.settled;
        } finally {
            lock.unlock();
        }
    }

    /** What the cache holds now, in bytes as {@link #MAX_CACHE_BYTES} counts them (for tests). */
    long cachedBytes() {
        lock.lock();
        try {
            return cachedBytes;
        } finally {
            lock.unlock();
        }
    }

    private String describe(Throwable error) {
        return Exchanges.describe(error, source, provider.timeout());
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
            throw new IllegalStateException("cannot set up TLS: " + e, e);
        }
    }
}

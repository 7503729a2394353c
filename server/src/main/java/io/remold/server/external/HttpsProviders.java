package io.remold.server.external;

import io.remold.api.Provider;
import io.remold.api.AllowedUrls;
import io.remold.kinitiras.HttpAnswers;
import io.remold.templating.ExternalData;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * External data from the Providers in force, over HTTPS with Gatekeeper's ProviderRequest protocol.
 *
 * <p>{@link #use} replaces the Providers in force at once; a Provider whose spec did not change keeps its client and
 * cache. Each key is asked at most once per cache TTL (transport failures: per {@code min(TTL, 10s)}; after 5 failed
 * calls in a row the Provider's breaker fails new keys at once for as long), concurrent fetches of a key share one call, and missing keys go in
 * batched POSTs of at most 100 keys, at most 8 under way per Provider. Calls run on virtual threads; a fetch waits
 * on the caller's thread at most the provider's timeout (a {@link #forRequest()} view: at most what is left of its
 * 3 s), so a slow provider holds only the requests that ask it, never a shared pool.
 */
public final class HttpsProviders implements ExternalData, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(HttpsProviders.class.getName());

    /** A Provider whose client could not be built (its TLS setup): its keys fail with {@code reason}. */
    private record Unusable(Provider provider, String reason) {
    }

    /** The Providers in force, replaced as a whole. */
    private record InForce(Map<String, ProviderClient> clients, Map<String, Unusable> unusable) {
    }

    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    /** Cancels calls at their timeout; one thread, since a task only cancels a future. */
    private final ScheduledThreadPoolExecutor timeouts = new ScheduledThreadPoolExecutor(1, task -> {
        Thread thread = new Thread(task, "remold-external-timeouts");
        thread.setDaemon(true);
        return thread;
    });
    private final LongSupplier clock;
    private final ReentrantLock changes = new ReentrantLock();
    private volatile InForce inForce = new InForce(Map.of(), Map.of());
    /** Set by {@link #close}: {@link #use} builds no more clients (the rule store may still call it). */
    private boolean closed;
    /** The http references' clients made with this one's threads, closed with it. */
    private final java.util.List<HttpReferences> httpReferences = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Map<String, ProviderCounters> counters = new ConcurrentHashMap<>();

    public HttpsProviders() {
        this(System::nanoTime);
    }

    /** {@code clock}: nanoseconds for cache and breaker times (tests move it by hand; waits stay real). */
    HttpsProviders(LongSupplier clock) {
        this.clock = clock;
        timeouts.setRemoveOnCancelPolicy(true); // a call that answered in time leaves nothing scheduled behind
    }

    /**
     * Makes {@code providers} the ones in force (by name; of two with one name the later wins, with a warning). A
     * Provider whose client cannot be built is in force all the same: its keys fail with the reason. After
     * {@link #close} it does nothing.
     */
    public void use(Collection<Provider> providers) {
        var byName = new LinkedHashMap<String, Provider>();
        for (Provider provider : providers) {
            if (byName.put(provider.name(), provider) != null) {
                LOG.log(System.Logger.Level.WARNING, "two Providers named " + provider.name()
                        + ": the later one is used");
            }
        }
        changes.lock();
        try {
            if (closed) {
                return;
            }
            InForce previous = inForce;
            var clients = new HashMap<String, ProviderClient>();
            var unusable = new HashMap<String, Unusable>();
            for (Provider provider : byName.values()) {
                ProviderClient kept = previous.clients().get(provider.name());
                if (kept != null && kept.provider.equals(provider)) {
                    clients.put(provider.name(), kept);
                    continue;
                }
                try {
                    clients.put(provider.name(), new ProviderClient(provider, executor, timeouts, clock,
                            counters.computeIfAbsent(provider.name(), name -> new ProviderCounters())));
                } catch (RuntimeException e) {
                    String reason = "Provider " + provider.name() + " cannot be used: "
                            + (e.getMessage() == null ? e.toString() : e.getMessage());
                    LOG.log(System.Logger.Level.WARNING, reason);
                    unusable.put(provider.name(), new Unusable(provider, reason));
                }
            }
            inForce = new InForce(Map.copyOf(clients), Map.copyOf(unusable));
            counters.keySet().retainAll(clients.keySet());
            var kept = new HashSet<>(clients.values());
            previous.clients().values().stream().filter(client -> !kept.contains(client))
                    .forEach(ProviderClient::shutdown);
        } finally {
            changes.unlock();
        }
    }

    /**
     * kinitiras's http references to the {@code allowed} prefixes, on this one's threads and clock (the JVM's trust
     * for https), closed with it; {@link HttpAnswers#REFUSED} when none is allowed.
     */
    public HttpAnswers httpReferences(AllowedUrls allowed) {
        return httpReferences(allowed, HttpReferences.TIMEOUT, HttpReferences.defaultTrust());
    }

    /** As {@link #httpReferences(AllowedUrls)}, each call within {@code timeout}, trusting {@code ssl} (tests'). */
    HttpAnswers httpReferences(AllowedUrls allowed, java.time.Duration timeout, javax.net.ssl.SSLContext ssl) {
        if (allowed.prefixes().isEmpty()) {
            return HttpAnswers.REFUSED;
        }
        var references = new HttpReferences(allowed, timeout, ssl, executor, timeouts, clock);
        httpReferences.add(references);
        return references;
    }

    /** A cluster-wide caller's fetch, which waits at most the provider's timeout. */
    @Override
    public Map<String, Answer> fetch(String provider, Collection<String> keys) {
        return fetch(provider, keys, null, true, false, 0, null);
    }

    /**
     * A fetch for a rule in {@code namespace} ({@code clusterWide}: one that any Provider serves), refused without a
     * call, fail closed, when the Provider's {@code spec.namespaces} does not serve it. When {@code bounded} it also
     * ends at {@code requestDeadline} ({@link System#nanoTime}), the request's budget: once that is spent, keys not
     * cached fail at once.
     */
    private Map<String, Answer> fetch(String provider, Collection<String> keys, String namespace, boolean clusterWide,
                                      boolean bounded, long requestDeadline, String budget) {
        InForce now = inForce;
        ProviderClient client = now.clients().get(provider);
        Unusable unusable = now.unusable().get(provider);
        Provider spec = client != null ? client.provider : unusable != null ? unusable.provider() : null;
        if (spec == null) {
            return ExternalData.failAll(keys, "no Provider named " + ProviderClient.jsonString(provider), false,
                    "none");
        }
        String refusal = spec.refusal(namespace, clusterWide);
        if (refusal != null) {
            return ExternalData.failAll(keys, refusal, false, "refused");
        }
        if (unusable != null) {
            return ExternalData.failAll(keys, unusable.reason(),
                    spec.failurePolicy() == Provider.FailurePolicy.Ignore, spec.url().toString());
        }
        long own = System.nanoTime() + spec.timeout().toNanos();
        return !bounded || own - requestDeadline <= 0
                ? client.fetch(keys, own, "no answer within " + Provider.format(spec.timeout()))
                : client.fetch(keys, requestDeadline, "no answer within the request's " + budget
                + " for external data");
    }

    /** A view for the rules of {@code namespace}, each fetch waiting at most the provider's timeout. */
    @Override
    public ExternalData forCaller(String namespace, boolean clusterWide) {
        return new Caller(namespace, clusterWide, false, 0, null);
    }

    /**
     * One admission request's view, explaining nothing: its fetches end together 3 s from now. It calls as a
     * cluster-wide caller (Gatekeeper's mutators); the engine takes a {@link #forCaller} view of it per rule.
     */
    @Override
    public ExternalData forRequest() {
        return new Caller(null, true, true, System.nanoTime() + REQUEST_BUDGET.toNanos(),
                Provider.format(REQUEST_BUDGET) + " budget");
    }

    /** A view for one admission request whose fetches end by {@code deadlineNanos}, the request's time budget. */
    @Override
    public ExternalData forRequest(boolean explain, long deadlineNanos) {
        ExternalData view = new Caller(null, true, true, deadlineNanos, "time budget");
        return explain ? ExternalData.recording(view) : view;
    }

    /** {@link #forRequest()}, remembering each answer when {@code explain}. */
    @Override
    public ExternalData forRequest(boolean explain) {
        return explain ? ExternalData.recording(forRequest()) : forRequest();
    }

    /** The fetches of one caller, within a request's budget when {@code bounded}. */
    private final class Caller implements ExternalData {
        private final String namespace;
        private final boolean clusterWide;
        private final boolean bounded;
        private final long requestDeadline;
        /** How an answer too late for the request names its budget. */
        private final String budget;

        Caller(String namespace, boolean clusterWide, boolean bounded, long requestDeadline, String budget) {
            this.namespace = namespace;
            this.clusterWide = clusterWide;
            this.bounded = bounded;
            this.requestDeadline = requestDeadline;
            this.budget = budget;
        }

        @Override
        public Map<String, Answer> fetch(String provider, Collection<String> keys) {
            return HttpsProviders.this.fetch(provider, keys, namespace, clusterWide, bounded, requestDeadline, budget);
        }

        @Override
        public ExternalData forCaller(String namespace, boolean clusterWide) {
            return new Caller(namespace, clusterWide, bounded, requestDeadline, budget);
        }
    }

    /**
     * Appends the per-provider counters in the Prometheus text format: one series per Provider in force, so the
     * cardinality is the number of Providers.
     */
    public void writeMetrics(StringBuilder sb) {
        var sorted = new java.util.TreeMap<>(counters);
        series(sb, sorted, "remold_external_calls_total", "POSTs to external data providers.", c -> c.calls.sum());
        series(sb, sorted, "remold_external_cache_hits_total",
                "External data keys answered without a new call (cached or already being asked).", c -> c.hits.sum());
        series(sb, sorted, "remold_external_failures_total",
                "Calls to external data providers that failed as a whole (transport, status, malformed, size,"
                        + " systemError, not idempotent, timeout); a key missing from an answer fails only that key"
                        + " and is not counted.", c -> c.failures.sum());
        var clients = new java.util.TreeMap<>(inForce.clients());
        sb.append("# HELP remold_external_breaker_open 1 while a provider's circuit breaker refuses calls.\n");
        sb.append("# TYPE remold_external_breaker_open gauge\n");
        clients.forEach((provider, client) -> sb.append("remold_external_breaker_open{provider=\"").append(provider)
                .append("\"} ").append(client.breakerOpen() ? 1 : 0).append('\n'));
    }

    private static void series(StringBuilder sb, Map<String, ProviderCounters> counters, String name, String help,
                               java.util.function.ToLongFunction<ProviderCounters> value) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(" counter\n");
        counters.forEach((provider, c) -> sb.append(name).append("{provider=\"").append(provider).append("\"} ")
                .append(value.applyAsLong(c)).append('\n'));
    }

    /** Whether a call of {@code provider} for {@code key} is awaited (for tests). */
    boolean pending(String provider, String key) {
        ProviderClient client = inForce.clients().get(provider);
        return client != null && client.pending(key);
    }

    /** Timeout tasks still scheduled: none once every call has ended (for tests). */
    int timeoutsScheduled() {
        return timeouts.getQueue().size();
    }

    /** Stops every client at once (calls under way fail), the calls' executor and the timeouts' thread. */
    @Override
    public void close() {
        changes.lock();
        try {
            closed = true;
            inForce.clients().values().forEach(ProviderClient::shutdownNow);
            httpReferences.forEach(HttpReferences::close);
            inForce = new InForce(Map.of(), Map.of());
            executor.shutdownNow();
            timeouts.shutdownNow();
        } finally {
            changes.unlock();
        }
    }
}

package io.remold.server.external;

import io.remold.api.Provider;
import io.remold.templating.ExternalData;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.ReentrantLock;

/**
 * External data from the Providers in force, over HTTPS with Gatekeeper's ProviderRequest protocol.
 *
 * <p>{@link #use} replaces the Providers in force at once; a Provider whose spec did not change keeps its client and
 * cache. Each key is asked at most once per cache TTL (transport failures: per {@code min(TTL, 10s)}), concurrent
 * fetches of a key share one call, and missing keys go in batched POSTs of at most 100 keys. Calls run on virtual
 * threads; a fetch waits on the caller's thread at most the provider's timeout (a {@link #forRequest()} view: at most
 * what is left of its 3 s), so a slow provider holds only the requests that ask it, never a shared pool.
 */
public final class HttpsProviders implements ExternalData, AutoCloseable {
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final ReentrantLock changes = new ReentrantLock();
    private volatile Map<String, ProviderClient> inForce = Map.of();
    private final Map<String, ProviderCounters> counters = new ConcurrentHashMap<>();

    /** Makes {@code providers} the ones in force (by name; of two with one name the later wins). */
    public void use(Collection<Provider> providers) {
        changes.lock();
        try {
            Map<String, ProviderClient> previous = inForce;
            var next = new HashMap<String, ProviderClient>();
            for (Provider provider : providers) {
                ProviderClient kept = previous.get(provider.name());
                next.put(provider.name(), kept != null && kept.provider.equals(provider) ? kept
                        : new ProviderClient(provider, executor,
                        counters.computeIfAbsent(provider.name(), name -> new ProviderCounters())));
            }
            inForce = Map.copyOf(next);
            counters.keySet().retainAll(next.keySet());
            var kept = new HashSet<>(next.values());
            previous.values().stream().filter(client -> !kept.contains(client)).forEach(ProviderClient::shutdown);
        } finally {
            changes.unlock();
        }
    }

    /** A cluster-wide caller's fetch, which waits at most the provider's timeout. */
    @Override
    public Map<String, Answer> fetch(String provider, Collection<String> keys) {
        return fetch(provider, keys, null, true, false, 0);
    }

    /**
     * A fetch for a rule in {@code namespace} ({@code clusterWide}: one that any Provider serves), refused without a
     * call, fail closed, when the Provider's {@code spec.namespaces} does not serve it. When {@code bounded} it also
     * ends at {@code requestDeadline} ({@link System#nanoTime}), the request's budget.
     */
    private Map<String, Answer> fetch(String provider, Collection<String> keys, String namespace, boolean clusterWide,
                                      boolean bounded, long requestDeadline) {
        ProviderClient client = inForce.get(provider);
        if (client == null) {
            return ExternalData.failAll(keys, "no Provider named " + ProviderClient.jsonString(provider), false,
                    "none");
        }
        String refusal = client.provider.refusal(namespace, clusterWide);
        if (refusal != null) {
            return ExternalData.failAll(keys, refusal, false, "refused");
        }
        long own = System.nanoTime() + client.provider.timeout().toNanos();
        return !bounded || own - requestDeadline <= 0
                ? client.fetch(keys, own, "no answer within " + ProviderClient.text(client.provider.timeout()))
                : client.fetch(keys, requestDeadline, "no answer within the request's "
                + ProviderClient.text(MAX_TIMEOUT) + " budget for external data");
    }

    /** A view for the rules of {@code namespace}, each fetch waiting at most the provider's timeout. */
    @Override
    public ExternalData forCaller(String namespace, boolean clusterWide) {
        return new Caller(namespace, clusterWide, false, 0);
    }

    /**
     * One admission request's view: its fetches end together 3 s from now, and each answer is remembered. It calls
     * as a cluster-wide caller (Gatekeeper's mutators); the engine takes a {@link #forCaller} view of it per rule.
     */
    @Override
    public ExternalData forRequest() {
        return ExternalData.recording(new Caller(null, true, true, System.nanoTime() + MAX_TIMEOUT.toNanos()));
    }

    /** The fetches of one caller, within a request's budget when {@code bounded}. */
    private final class Caller implements ExternalData {
        private final String namespace;
        private final boolean clusterWide;
        private final boolean bounded;
        private final long requestDeadline;

        Caller(String namespace, boolean clusterWide, boolean bounded, long requestDeadline) {
            this.namespace = namespace;
            this.clusterWide = clusterWide;
            this.bounded = bounded;
            this.requestDeadline = requestDeadline;
        }

        @Override
        public Map<String, Answer> fetch(String provider, Collection<String> keys) {
            return HttpsProviders.this.fetch(provider, keys, namespace, clusterWide, bounded, requestDeadline);
        }

        @Override
        public ExternalData forCaller(String namespace, boolean clusterWide) {
            return new Caller(namespace, clusterWide, bounded, requestDeadline);
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
                        + " systemError, timeout).", c -> c.failures.sum());
    }

    private static void series(StringBuilder sb, Map<String, ProviderCounters> counters, String name, String help,
                               java.util.function.ToLongFunction<ProviderCounters> value) {
        sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
        sb.append("# TYPE ").append(name).append(" counter\n");
        counters.forEach((provider, c) -> sb.append(name).append("{provider=\"").append(provider).append("\"} ")
                .append(value.applyAsLong(c)).append('\n'));
    }

    /** Stops every client at once (calls under way fail) and the calls' executor. */
    @Override
    public void close() {
        changes.lock();
        try {
            inForce.values().forEach(ProviderClient::shutdownNow);
            inForce = Map.of();
            executor.shutdownNow();
        } finally {
            changes.unlock();
        }
    }
}

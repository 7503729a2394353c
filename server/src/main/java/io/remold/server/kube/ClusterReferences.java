package io.remold.server.kube;

import io.kubernetes.client.Discovery;
import io.kubernetes.client.informer.cache.Caches;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1APIGroup;
import io.kubernetes.client.openapi.models.V1APIResource;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.remold.engine.ReferenceException;
import io.remold.engine.ReferenceQuery;
import io.remold.engine.ReferenceScope;
import io.remold.server.rules.ReferenceSource;
import io.remold.server.rules.Requester;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * ModRules' {@code spec.references} in cluster mode, answered from informer stores: the {@link Informers} of a
 * referenced kind, held from when the first rule references the kind until none does any more, so that only what
 * rules (or other parts of the server) read is cached. Only the resources of {@code --allow-references} (the RBAC the installer grants) are ever watched; a
 * namespaced rule reads only its own namespace and never a cluster-scoped kind. Discovery (which resource a kind is,
 * and at start every kind of the allowed API groups) and informers run in the background, discovery retried with
 * backoff when it fails: the request path only reads the stores.
 */
public final class ClusterReferences implements ReferenceSource, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ClusterReferences.class.getName());
    private static final Duration MAX_RETRY = Duration.ofMinutes(5);
    /** What a reference does: reads one object by name, or lists by selector. */
    private static final List<String> READ_VERBS = List.of("get", "list");

    /** What a referenced kind is now: cached, refused for good, or waiting to retry discovery. */
    private sealed interface State {
    }

    private record Watching(Discovered resource, Informers.Hold hold) implements State {
    }

    private record Refused(String reason) implements State {
    }

    private record Retrying(String reason, int attempt) implements State {
    }

    /** A kind's resource as discovery found it: {@code [group/]plural}. */
    private record Discovered(String group, String version, String plural, boolean clusterScoped) {
        String name() {
            return group.isEmpty() ? plural : group + "/" + plural;
        }
    }

    private final Informers informers;
    private final ApiClient requestClient;
    private final AccessReviews accessReviews;
    /** {@code [group/]plural}. */
    private final Set<String> allowed;
    private final Set<String> allowedGroups;
    private final Duration firstRetry;
    /** By {@code apiVersion kind}: the kinds the rules reference now. */
    private final Map<String, State> kinds = new ConcurrentHashMap<>();
    /** By {@code apiVersion kind}: every kind discovery answered, kept when no rule references it any more. */
    private final Map<String, Discovered> discovered = new ConcurrentHashMap<>();
    private final ScheduledExecutorService background =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("remold-references").factory());
    /** What the latest rules reference; read and written on the background thread. */
    private Set<String> wanted = Set.of();
    private volatile boolean closed;

    ClusterReferences(Informers informers, List<String> allowed, Duration firstRetry) {
        this.informers = informers;
        this.requestClient = informers.clients().requests();
        this.accessReviews = new AccessReviews(requestClient);
        this.allowed = Set.copyOf(allowed);
        this.allowedGroups = this.allowed.stream().map(r -> r.contains("/") ? r.substring(0, r.indexOf('/')) : "")
                .collect(Collectors.toUnmodifiableSet());
        this.firstRetry = firstRetry;
        run(() -> learnAllowedGroups(0));
    }

    /** With the server's informers, reading the {@code allowed} resources only. */
    public static ClusterReferences connect(Informers informers, List<String> allowed) {
        return new ClusterReferences(informers, allowed, Duration.ofSeconds(1));
    }

    @Override
    public void use(Set<String> referenced) {
        Set<String> copy = Set.copyOf(referenced);
        run(() -> {
            wanted = copy;
            reconcile();
        });
    }

    private void run(Runnable task) {
        try {
            background.execute(task);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    /** Holds informers of newly referenced kinds, releases those no rule references any more. */
    private void reconcile() {
        for (String kind : wanted) {
            if (!closed && !kinds.containsKey(kind)) {
                settle(kind, 0);
            }
        }
        for (var it = kinds.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            if (!wanted.contains(entry.getKey())) {
                it.remove();
                if (entry.getValue() instanceof Watching w) {
                    w.hold().close();
                    LOG.log(System.Logger.Level.INFO, "no rule references {0} any more: released its cache",
                            w.resource().name());
                }
            }
        }
    }

    /**
     * Learns every kind of the allowed resources' API groups, so that a rule referencing another kind of those groups
     * (a Secret when only ConfigMaps are allowed) is refused when it is created, not only when it is evaluated.
     */
    private void learnAllowedGroups(int attempt) {
        if (closed || allowedGroups.isEmpty()) {
            return;
        }
        try {
            var discovery = new Discovery(requestClient);
            var apiVersions = new ArrayList<String>();
            if (allowedGroups.contains("")) {
                apiVersions.addAll(discovery.legacyCoreApi().getVersions());
            }
            for (V1APIGroup group : discovery.groupDiscovery("/apis").getGroups()) {
                if (allowedGroups.contains(group.getName())) {
                    group.getVersions().forEach(v -> apiVersions.add(v.getGroupVersion()));
                }
            }
            for (String apiVersion : apiVersions) {
                for (V1APIResource resource : discovery.resourceDiscovery(path(apiVersion)).getResources()) {
                    if (!resource.getName().contains("/")) {
                        discovered.putIfAbsent(apiVersion + " " + resource.getKind(), discovered(apiVersion, resource));
                    }
                }
            }
        } catch (ApiException | RuntimeException e) {
            retryLater("cannot discover the kinds of the allowed API groups (" + why(e) + ")", attempt,
                    () -> learnAllowedGroups(attempt + 1));
        }
    }

    /** Finds out what {@code kind} is and acts on it; a failure is tried again later, each time waiting twice longer. */
    private void settle(String kind, int attempt) {
        State state = watch(kind);
        kinds.put(kind, state instanceof Retrying r ? new Retrying(r.reason(), attempt) : state);
        if (state instanceof Retrying r) {
            retryLater(r.reason(), attempt, () -> {
                if (wanted.contains(kind) && kinds.get(kind) instanceof Retrying) {
                    settle(kind, attempt + 1);
                }
            });
        }
    }

    private void retryLater(String reason, int attempt, Runnable retry) {
        Duration wait = backoff(attempt);
        LOG.log(System.Logger.Level.WARNING, "{0}: trying again in {1} ms", reason, wait.toMillis());
        try {
            background.schedule(() -> {
                if (!closed) {
                    retry.run();
                }
            }, wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    private static String why(Exception e) {
        return e instanceof ApiException api ? "HTTP " + api.getCode() : e.toString();
    }

    private Duration backoff(int attempt) {
        Duration wait = firstRetry.multipliedBy(1L << Math.min(attempt, 20));
        return wait.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : wait;
    }

    private State watch(String kind) {
        Discovered resource = discovered.get(kind);
        if (resource == null) {
            try {
                resource = discover(kind);
            } catch (ApiException | RuntimeException e) {
                return new Retrying("cannot find out which resource " + kind + " is (" + why(e) + ")", 0);
            }
            if (resource == null) {
                return new Retrying(kind + " is not served by the API server", 0);
            }
            discovered.put(kind, resource);
        }
        if (!allowed.contains(resource.name())) {
            return new Refused(notAllowed(resource.name()));
        }
        var informer = informers.acquire(new Informers.Resource(resource.group(), resource.version(),
                resource.plural()));
        LOG.log(System.Logger.Level.INFO, "a rule references {0}: caching them", resource.name());
        return new Watching(resource, informer);
    }

    private Discovered discover(String kind) throws ApiException {
        String apiVersion = kind.substring(0, kind.indexOf(' '));
        String kindName = kind.substring(kind.indexOf(' ') + 1);
        V1APIResource found = new Discovery(requestClient).resourceDiscovery(path(apiVersion)).getResources().stream()
                .filter(r -> kindName.equals(r.getKind()) && !r.getName().contains("/")).findFirst().orElse(null);
        return found == null ? null : discovered(apiVersion, found);
    }

    private static String path(String apiVersion) {
        return apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion;
    }

    private static Discovered discovered(String apiVersion, V1APIResource resource) {
        int slash = apiVersion.indexOf('/');
        return new Discovered(slash < 0 ? "" : apiVersion.substring(0, slash), apiVersion.substring(slash + 1),
                resource.getName(), !Boolean.TRUE.equals(resource.getNamespaced()));
    }

    private String notAllowed(String what) {
        return what + " may not be referenced: the server reads only "
                + (allowed.isEmpty() ? "no resources" : String.join(", ", new TreeSet<>(allowed)))
                + " (--allow-references)";
    }

    @Override
    public Optional<String> refusal(String apiVersion, String kind, boolean clusterWide) {
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        if (!allowedGroups.contains(group)) {
            return Optional.of(notAllowed(apiVersion + " " + kind));
        }
        Discovered resource = discovered.get(apiVersion + " " + kind);
        if (resource == null) {
            return Optional.empty();
        }
        if (!allowed.contains(resource.name())) {
            return Optional.of(notAllowed(resource.name()));
        }
        return resource.clusterScoped() && !clusterWide ? Optional.of(ReferenceScope.clusterScoped(resource.name())) : Optional.empty();
    }

    /** Asks the API server (discovery if the kind is new, then an access review per verb): on a rule's admission only. */
    @Override
    public Optional<String> unreadable(Requester author, String namespace, String apiVersion, String kind) {
        String key = apiVersion + " " + kind;
        String who = "user \"" + author.user() + "\"";
        try {
            Discovered resource = discovered.get(key);
            if (resource == null) {
                resource = discover(key);
                if (resource == null) {
                    return Optional.of("cannot check whether " + who + " may read " + key
                            + ": the API server does not serve it");
                }
                discovered.putIfAbsent(key, resource);
            }
            String scope = resource.clusterScoped() ? "" : namespace;
            for (String verb : READ_VERBS) {
                if (!accessReviews.allowed(author, verb, resource.group(), resource.plural(), scope)) {
                    return Optional.of(who + " may not " + verb + " " + resource.name()
                            + (scope.isEmpty() ? " cluster-wide" : " in namespace " + scope)
                            + ": a rule may reference only what its author may read");
                }
            }
            return Optional.empty();
        } catch (ApiException | RuntimeException e) {
            return Optional.of("cannot check whether " + who + " may read " + key + " (" + why(e) + ")");
        }
    }

    @Override
    public Resolution resolve(ReferenceQuery query) {
        State state = kinds.get(query.apiVersion() + " " + query.kind());
        if (state == null) {
            Optional<String> refused = refusal(query.apiVersion(), query.kind(), query.clusterWide());
            if (refused.isPresent()) {
                throw new ReferenceException(refused.get());
            }
            return new Resolution(null, "not cached yet: the rule is new");
        }
        Watching watching;
        switch (state) {
            case Refused r -> throw new ReferenceException(r.reason());
            case Retrying r -> {
                return new Resolution(null, r.reason() + "; trying again");
            }
            case Watching w -> watching = w;
        }
        String resource = watching.resource().name();
        if (watching.resource().clusterScoped() && !query.clusterWide()) {
            throw new ReferenceException(ReferenceScope.clusterScoped(resource));
        }
        if (!watching.hold().hasSynced()) {
            return new Resolution(null, "cache of " + resource + " still listing");
        }
        String source = "cache of " + resource;
        boolean clusterScoped = watching.resource().clusterScoped();
        if (!clusterScoped && ReferenceScope.noNamespace(query)) {
            return new Resolution(query.name() != null ? null : JsonValue.EMPTY_JSON_ARRAY, source + ", no namespace");
        }
        var indexer = watching.hold().store();
        if (query.name() != null) {
            DynamicKubernetesObject found = indexer.getByKey(clusterScoped ? query.name()
                    : query.namespace() + "/" + query.name());
            return new Resolution(found == null ? null : Manifests.toJson(found), source);
        }
        List<DynamicKubernetesObject> candidates = clusterScoped ? indexer.list()
                : indexer.byIndex(Caches.NAMESPACE_INDEX, query.namespace());
        return new Resolution(ReferenceScope.byName(candidates.stream().map(Manifests::toJson)
                .filter(o -> query.selector().matches(labels(o)))), source);
    }

    private static Map<String, String> labels(JsonObject manifest) {
        var labels = new HashMap<String, String>();
        if (manifest.get("metadata") instanceof JsonObject metadata && metadata.get("labels") instanceof JsonObject l) {
            for (Map.Entry<String, JsonValue> e : l.entrySet()) {
                if (e.getValue() instanceof JsonString s) {
                    labels.put(e.getKey(), s.getString());
                }
            }
        }
        return labels;
    }

    /** Kinds cached now (for tests and logs). */
    Set<String> cachedKinds() {
        var out = new TreeSet<String>();
        kinds.forEach((kind, state) -> {
            if (state instanceof Watching) {
                out.add(kind);
            }
        });
        return out;
    }

    @Override
    public void close() {
        closed = true;
        DynamicInformer.stopBackground(background);
        kinds.values().forEach(state -> {
            if (state instanceof Watching w) {
                w.hold().close();
            }
        });
        kinds.clear();
    }
}

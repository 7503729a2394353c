package io.remold.server.kube;

import io.kubernetes.client.Discovery;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import io.remold.scripting.ScriptHost;
import io.remold.server.rules.ScriptEvents;
import jakarta.json.JsonObject;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * The events of script rules in cluster mode: the {@link Informers} of each resource some script names in
 * {@code kinds} (and handles events of), held from when the first script names it until none does any more, feeding
 * the {@link ScriptHost}; a new rule's initial objects are read from these informers' stores. Which resources may be
 * watched is the RBAC's business (the installer's {@code --script-kinds}, pods by default): a resource the server
 * may not list is logged and skipped, and looked for again when the rules change.
 */
public final class ClusterScriptEvents implements ScriptEvents, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ClusterScriptEvents.class.getName());


    private final Informers informers;
    private final ApiClient requestClient;
    /** By resource (plural) as scripts name it. */
    private final Map<String, Informers.Hold> watched = new ConcurrentHashMap<>();
    private final ExecutorService background =
            Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("remold-script-events").factory());
    private volatile ScriptHost host;
    private volatile boolean closed;

    private ClusterScriptEvents(Informers informers) {
        this.informers = informers;
        this.requestClient = informers.clients().requests();
    }

    /** With the server's informers. */
    public static ClusterScriptEvents connect(Informers informers) {
        return new ClusterScriptEvents(informers);
    }

    @Override
    public void use(ScriptHost host, Set<String> resources) {
        if (this.host != host) {
            this.host = host;
            host.existing(this::existing);
        }
        try {
            background.execute(() -> reconcile(Set.copyOf(resources)));
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    private void reconcile(Set<String> resources) {
        for (String resource : resources) {
            if (!closed && !watched.containsKey(resource)) {
                Informers.Hold w = watch(resource);
                if (w != null) {
                    watched.put(resource, w);
                }
            }
        }
        for (var it = watched.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            if (!resources.contains(entry.getKey())) {
                it.remove();
                entry.getValue().close();
                LOG.log(System.Logger.Level.INFO, "no script names {0} any more: stopped watching them",
                        entry.getKey());
            }
        }
    }

    /** Finds the resource's group and version (the core group first), checks that it may be listed, watches it. */
    private Informers.Hold watch(String resource) {
        Discovery.APIResource found;
        try {
            found = new Discovery(requestClient).findAll().stream()
                    .filter(r -> resource.equals(r.getResourcePlural()))
                    .min(Comparator.comparing(r -> r.getGroup() == null ? "" : r.getGroup())).orElse(null);
        } catch (ApiException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot find out which resource {0} is ({1}): scripts get no events"
                    + " of them until the rules change", resource, e instanceof ApiException a ? "HTTP " + a.getCode()
                    : e.toString());
            return null;
        }
        if (found == null) {
            LOG.log(System.Logger.Level.WARNING, "a script names {0}, which the API server does not serve", resource);
            return null;
        }
        String group = found.getGroup() == null ? "" : found.getGroup();
        String version = found.getPreferredVersion();
        try {
            new DynamicKubernetesApi(group, version, resource, requestClient).list(new ListOptions().limit(1))
                    .throwsApiException();
        } catch (ApiException e) {
            LOG.log(System.Logger.Level.WARNING, "a script names {0}, which the server may not list (HTTP {1}): grant"
                    + " it with the installer''s --script-kinds; scripts get no events of them", resource, e.getCode());
            return null;
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot list {0}: {1}", resource, e.toString());
            return null;
        }
        var informer = informers.acquire(new Informers.Resource(group, version, resource), new Feed(resource));
        LOG.log(System.Logger.Level.INFO, "a script names {0}: watching them for its events", resource);
        return informer;
    }

    /** The objects of a resource in its informer's store: what a new rule is told of as created. */
    private Collection<JsonObject> existing(String resource) {
        Informers.Hold w = watched.get(resource);
        return w == null ? List.of() : w.store().list().stream().map(Manifests::toJson).toList();
    }

    /** Passes an informer's events to the host; the host remembers which objects each rule knows. */
    private final class Feed implements ResourceEventHandler<DynamicKubernetesObject> {
        private final String resource;

        Feed(String resource) {
            this.resource = resource;
        }

        @Override
        public void onAdd(DynamicKubernetesObject object) {
            host.created(resource, Manifests.toJson(object));
        }

        @Override
        public void onUpdate(DynamicKubernetesObject oldObject, DynamicKubernetesObject newObject) {
            host.updated(resource, Manifests.toJson(oldObject), Manifests.toJson(newObject));
        }

        @Override
        public void onDelete(DynamicKubernetesObject object, boolean finalStateUnknown) {
            host.deleted(resource, Manifests.toJson(object));
        }
    }

    @Override
    public void close() {
        closed = true;
        DynamicInformer.stopBackground(background);
        watched.values().forEach(Informers.Hold::close);
        watched.clear();
    }
}

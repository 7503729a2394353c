package io.remold.server.kube;

import io.kubernetes.client.Discovery;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1APIGroup;
import io.kubernetes.client.openapi.models.V1APIResource;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import io.kubernetes.client.util.generic.options.ListOptions;
import io.remold.cli.UsageException;
import io.remold.cli.preview.ObjectSource;
import io.remold.engine.Family.TargetKind;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@code preview}'s live cluster: discovery maps a rule's kinds to resources (each group's preferred version; a kind
 * of any group in every group that serves it), and paginated lists ({@value #PAGE} objects a page, one page in
 * memory at a time) read them, at most {@code qps} requests a second. A list whose continue token the API server has
 * expired (410 Gone) starts over once. Objects are handed out without {@code metadata.managedFields}, as the
 * server's informers keep them.
 */
public final class ClusterObjectSource implements ObjectSource {
    static final int PAGE = 500;

    private final ApiClient client;
    private final long nanosPerRequest;
    private long nextRequest = System.nanoTime();
    /** By API group ("" for the core group): the listable resources of its preferred version. */
    private Map<String, List<Served>> groups;
    private final Map<String, Optional<JsonObject>> namespaces = new HashMap<>();

    /** A resource as discovery serves it. */
    private record Served(String apiVersion, String kind, String plural, boolean namespaced) {
        String group() {
            return TargetKind.groupOf(apiVersion);
        }
    }

    ClusterObjectSource(ApiClient client, double qps) {
        this.client = client;
        this.nanosPerRequest = (long) (TimeUnit.SECONDS.toNanos(1) / qps);
    }

    /** The cluster of {@code kubeconfig}'s context (null: its current one), as kubectl reads that file. */
    public static ObjectSource connect(Path kubeconfig, String context, double qps) {
        KubeConfig config;
        try (Reader reader = Files.newBufferedReader(kubeconfig, StandardCharsets.UTF_8)) {
            config = KubeConfig.loadKubeConfig(reader);
        } catch (IOException | RuntimeException e) {
            throw new UsageException("--kubeconfig " + kubeconfig + ": cannot read: " + e.getMessage());
        }
        config.setFile(kubeconfig.toAbsolutePath().toFile()); // relative certificate paths are the file's
        if (context != null && !config.setContext(context)) {
            throw new UsageException("--context " + context + ": " + kubeconfig + " has no such context");
        }
        try {
            ApiClient client = ClientBuilder.kubeconfig(config).build();
            client.setReadTimeout((int) Duration.ofSeconds(30).toMillis());
            return new ClusterObjectSource(client, qps);
        } catch (IOException | RuntimeException e) {
            throw new UsageException("--kubeconfig " + kubeconfig + ": cannot connect: " + e.getMessage());
        }
    }

    @Override
    public void list(Set<TargetKind> kinds, Set<String> namespaces, Listing listing) {
        if (kinds.isEmpty()) {
            throw new UsageException("a cluster is listed by kind: give --kind");
        }
        var resources = new LinkedHashSet<Served>();
        kinds.forEach(kind -> resources.addAll(resources(kind)));
        for (Served resource : resources) {
            if (!resource.namespaced() && !namespaces.isEmpty()) {
                continue; // --namespace leaves cluster-scoped objects out
            }
            if (namespaces.isEmpty()) {
                list(resource, null, listing);
            } else {
                namespaces.forEach(namespace -> list(resource, namespace, listing));
            }
        }
    }

    /**
     * Every page of one resource (in one namespace, or in all when null), starting over once on 410 Gone: each list
     * is a start of its own, so that starting one over forgets only what that list gave.
     */
    private void list(Served resource, String namespace, Listing listing) {
        String what = resource.apiVersion() + " " + resource.kind() + (namespace == null ? "" : " in " + namespace);
        listing.start(what);
        int slash = resource.apiVersion().indexOf('/');
        var api = new DynamicKubernetesApi(resource.group(), resource.apiVersion().substring(slash + 1),
                resource.plural(), client);
        String next = null;
        boolean restarted = false;
        while (true) {
            var options = new ListOptions();
            options.setLimit(PAGE);
            options.setContinue(next);
            pace();
            KubernetesApiResponse<DynamicKubernetesListObject> response = call("list " + resource.plural()
                    + (namespace == null ? "" : " in namespace " + namespace),
                    () -> namespace == null ? api.list(options) : api.list(namespace, options));
            if (response.getHttpStatusCode() == 410 && next != null && !restarted) {
                restarted = true;
                next = null;
                listing.start(what);
                continue;
            }
            if (!response.isSuccess()) {
                throw new UsageException("cannot list " + resource.plural() + (namespace == null ? ""
                        : " in namespace " + namespace) + ": " + failure(response));
            }
            DynamicKubernetesListObject page = response.getObject();
            var objects = new ArrayList<JsonObject>(page.getItems().size());
            for (DynamicKubernetesObject item : page.getItems()) {
                objects.add(object(item, resource));
            }
            if (!objects.isEmpty()) {
                listing.page(objects);
            }
            next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
            if (next == null || next.isEmpty()) {
                return;
            }
        }
    }

    /** As a watch event carries it: with kind and apiVersion, which lists leave out; without managedFields. */
    private static JsonObject object(DynamicKubernetesObject item, Served resource) {
        com.google.gson.JsonObject raw = item.getRaw();
        raw.addProperty("apiVersion", resource.apiVersion());
        raw.addProperty("kind", resource.kind());
        if (raw.get("metadata") instanceof com.google.gson.JsonObject metadata) {
            metadata.remove("managedFields");
        }
        return JsonTree.parse(raw.toString().getBytes(StandardCharsets.UTF_8)).asJsonObject();
    }

    private static String failure(KubernetesApiResponse<?> response) {
        String message = response.getStatus() != null ? response.getStatus().getMessage() : null;
        return "HTTP " + response.getHttpStatusCode() + (message == null ? "" : ": " + message);
    }

    /** The resources a rule's kind is served as: its kind in its group, or in every group when it names none. */
    private List<Served> resources(TargetKind kind) {
        var found = new ArrayList<Served>();
        discovered().forEach((group, served) -> {
            if (kind.group() == null || kind.group().equals(group)) {
                served.stream().filter(s -> kind.kind() != null ? kind.kind().equals(s.kind())
                        : kind.resource().equals(s.plural())).forEach(found::add);
            }
        });
        return found;
    }

    private Map<String, List<Served>> discovered() {
        if (groups != null) {
            return groups;
        }
        var discovery = new Discovery(client);
        var apiVersions = new ArrayList<String>();
        try {
            pace();
            apiVersions.addAll(discovery.legacyCoreApi().getVersions());
            pace();
            for (V1APIGroup group : discovery.groupDiscovery("/apis").getGroups()) {
                if (group.getPreferredVersion() != null) {
                    apiVersions.add(group.getPreferredVersion().getGroupVersion());
                }
            }
            var found = new LinkedHashMap<String, List<Served>>();
            for (String apiVersion : apiVersions) {
                pace();
                var served = new ArrayList<Served>();
                for (V1APIResource resource : discovery.resourceDiscovery(apiVersion.contains("/")
                        ? "/apis/" + apiVersion : "/api/" + apiVersion).getResources()) {
                    if (!resource.getName().contains("/") && resource.getVerbs().contains("list")) {
                        served.add(new Served(apiVersion, resource.getKind(), resource.getName(),
                                Boolean.TRUE.equals(resource.getNamespaced())));
                    }
                }
                found.merge(TargetKind.groupOf(apiVersion), served, (a, b) -> {
                    a.addAll(b);
                    return a;
                });
            }
            groups = found;
            return groups;
        } catch (ApiException e) {
            throw new UsageException("cannot discover the cluster's kinds: HTTP " + e.getCode() + ": "
                    + (e.getResponseBody() != null ? e.getResponseBody() : e.getMessage()));
        } catch (RuntimeException e) {
            throw new UsageException("cannot discover the cluster's kinds: " + e.getMessage());
        }
    }

    @Override
    public JsonObject namespace(String name) {
        return namespaces.computeIfAbsent(name, n -> {
            pace();
            var response = call("read namespace " + n,
                    () -> new DynamicKubernetesApi("", "v1", "namespaces", client).get(n));
            if (response.getHttpStatusCode() == 404) {
                return Optional.empty();
            }
            if (!response.isSuccess()) {
                throw new UsageException("cannot read namespace " + n + ": " + failure(response));
            }
            return Optional.of(object(response.getObject(), new Served("v1", "Namespace", "namespaces", false)));
        }).orElse(null);
    }

    /** A request whose transport failure (the API server unreachable, an answer that does not parse) says what. */
    private static <T> T call(String what, Supplier<T> request) {
        try {
            return request.get();
        } catch (RuntimeException e) {
            throw new UsageException("cannot " + what + ": " + e.getMessage());
        }
    }

    /** Waits for the next request's turn: at most qps requests a second. */
    private void pace() {
        long wait = nextRequest - System.nanoTime();
        if (wait > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UsageException("interrupted");
            }
        }
        nextRequest = Math.max(nextRequest, System.nanoTime()) + nanosPerRequest;
    }

    @Override
    public void close() {
        client.getHttpClient().dispatcher().executorService().shutdown();
        client.getHttpClient().connectionPool().evictAll();
    }
}

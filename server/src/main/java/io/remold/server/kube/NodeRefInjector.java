package io.remold.server.kube;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesApi;
import io.remold.server.admission.BindingListener;
import jakarta.json.JsonObject;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Annotates a freshly bound pod with the name of its node when the pod asks for it, so that the UPDATE this causes
 * lets the webhook inject {@code syntheticRefs.node}. Runs on its own scheduler, never on the request thread.
 *
 * <p>Each attempt reads the pod first (the Binding does not carry its annotations), does nothing when the pod does
 * not ask, is already annotated, or is bound to another node, and patches with the resourceVersion it read: a
 * concurrent change answers 409 Conflict and the attempt is repeated on a fresh read. This makes the patch
 * idempotent, so whichever replica receives the binding may do it (see docs/cluster.md).
 */
final class NodeRefInjector implements BindingListener {
    private static final System.Logger LOG = System.getLogger(NodeRefInjector.class.getName());
    static final String INJECT = "ref.remold.io/inject-node-ref";
    static final String NODE_NAME = "ref.remold.io/nodename";
    static final String KUBEMOD_INJECT = "ref.kubemod.io/inject-node-ref";
    /** The key KubeMod's README documents. */
    static final String KUBEMOD_NODE = "ref.kubemod.io/node";
    /** The key KubeMod's code writes and reads (its README says {@link #KUBEMOD_NODE}): both are written. */
    static final String KUBEMOD_NODE_NAME = "ref.kubemod.io/nodename";
    static final int MAX_ATTEMPTS = 8;
    /** Bindings waiting for their next attempt, at most: beyond this a binding is dropped (and logged). */
    static final int MAX_PENDING = 10_000;

    /** Runs a task after a delay, off the caller's thread; throws RejectedExecutionException once closed. */
    interface Scheduler {
        void after(Duration delay, Runnable task);
    }

    /** Which annotation asks for which node-name annotation. */
    private record Request(String inject, String nodeName) {
    }

    /** One {@code pods/binding} CREATE seen by the webhook. */
    private record Binding(String namespace, String pod, String node) {
    }

    private final DynamicKubernetesApi pods;
    private final Scheduler scheduler;
    private final List<Request> requests;
    private final AtomicInteger pending = new AtomicInteger();

    NodeRefInjector(ApiClient client, Scheduler scheduler, boolean kubemodCompat) {
        // Raw JSON pods: client-java's typed V1Pod refuses fields it does not know, which newer API servers send.
        this.pods = new DynamicKubernetesApi("", "v1", "pods", client);
        this.scheduler = scheduler;
        this.requests = kubemodCompat
                ? List.of(new Request(INJECT, NODE_NAME), new Request(KUBEMOD_INJECT, KUBEMOD_NODE),
                        new Request(KUBEMOD_INJECT, KUBEMOD_NODE_NAME))
                : List.of(new Request(INJECT, NODE_NAME));
    }

    /**
     * The wait before attempt {@code attempt + 1}: 100 ms doubling up to 2 s, about 7 s in all, enough for the
     * binding to be stored. Waits are scheduled, so one slow pod never holds up the others.
     */
    static Duration backoff(int attempt) {
        return Duration.ofMillis(Math.min(2000L, 100L << Math.min(attempt - 1, 5)));
    }

    @Override
    public void bound(String namespace, String pod, String node) {
        if (pending.incrementAndGet() > MAX_PENDING) {
            pending.decrementAndGet();
            LOG.log(System.Logger.Level.WARNING, "node reference of pod {0}/{1} dropped: {2} bindings pending",
                    namespace, pod, MAX_PENDING);
            return;
        }
        schedule(new Binding(namespace, pod, node), 1, Duration.ZERO);
    }

    /** What an attempt found: done (patched or nothing to do), or try again. */
    private enum Outcome { DONE, RETRY }

    private void schedule(Binding binding, int attempt, Duration delay) {
        try {
            scheduler.after(delay, () -> run(binding, attempt));
        } catch (RejectedExecutionException e) {
            pending.decrementAndGet();
            LOG.log(System.Logger.Level.DEBUG, "node reference of pod {0}/{1} dropped: shutting down",
                    binding.namespace(), binding.pod());
        }
    }

    private void run(Binding binding, int attempt) {
        Outcome outcome;
        try {
            outcome = attempt(binding.namespace(), binding.pod(), binding.node());
        } catch (RuntimeException e) { // a reply that cannot be read, a connection refused: try again
            LOG.log(System.Logger.Level.DEBUG, "pod {0}/{1}, attempt {2}: {3}", binding.namespace(),
                    binding.pod(), attempt, e.toString());
            outcome = Outcome.RETRY;
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                LOG.log(System.Logger.Level.DEBUG, "pod {0}/{1} is gone", binding.namespace(), binding.pod());
                outcome = Outcome.DONE;
            } else {
                LOG.log(System.Logger.Level.DEBUG, "pod {0}/{1}, attempt {2}: HTTP {3}", binding.namespace(),
                        binding.pod(), attempt, e.getCode());
                outcome = Outcome.RETRY;
            }
        }
        if (outcome == Outcome.RETRY && attempt < MAX_ATTEMPTS) {
            schedule(binding, attempt + 1, backoff(attempt));
            return;
        }
        pending.decrementAndGet();
        if (outcome == Outcome.RETRY) {
            LOG.log(System.Logger.Level.WARNING, "pod {0}/{1} not annotated with node {2} after {3} attempts",
                    binding.namespace(), binding.pod(), binding.node(), MAX_ATTEMPTS);
        }
    }

    private Outcome attempt(String namespace, String pod, String node) throws ApiException {
        JsonObject current = Manifests.toJson(pods.get(namespace, pod).throwsApiException().getObject());
        var wanted = new LinkedHashMap<String, String>();
        for (Request request : requests) {
            if (Manifests.metadataEntry(current, "annotations", request.inject()).filter("true"::equals).isPresent()
                    && !Manifests.metadataEntry(current, "annotations", request.nodeName())
                    .filter(node::equals).isPresent()) {
                wanted.put(request.nodeName(), node);
            }
        }
        if (wanted.isEmpty()) {
            return Outcome.DONE;
        }
        String boundTo = current.get("spec") instanceof JsonObject spec ? spec.getString("nodeName", "") : "";
        if (boundTo.isEmpty()) {
            return Outcome.RETRY; // the binding is admitted but not stored yet
        }
        if (!boundTo.equals(node)) {
            LOG.log(System.Logger.Level.INFO, "pod {0}/{1} is bound to {2}, not {3}: not annotated",
                    namespace, pod, boundTo, node);
            return Outcome.DONE;
        }
        var patch = new V1Patch(patchBody(Manifests.metadata(current, "resourceVersion").orElse(null), wanted));
        pods.patch(namespace, pod, V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, patch).throwsApiException();
        LOG.log(System.Logger.Level.INFO, "pod {0}/{1} annotated with node {2}", namespace, pod, node);
        return Outcome.DONE;
    }

    /** A merge patch that carries the resourceVersion read, so the API server refuses it (409) if the pod moved on. */
    static String patchBody(String resourceVersion, Map<String, String> annotations) {
        var json = Manifests.JSON;
        var values = json.createObjectBuilder();
        annotations.forEach(values::add);
        var metadata = json.createObjectBuilder().add("annotations", values);
        if (resourceVersion != null) {
            metadata.add("resourceVersion", resourceVersion);
        }
        return json.createObjectBuilder().add("metadata", metadata).build().toString();
    }
}

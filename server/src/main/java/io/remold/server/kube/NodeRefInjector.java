package io.remold.server.kube;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.util.PatchUtils;
import io.remold.server.admission.BindingListener;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Annotates a freshly bound pod with the name of its node when the pod asks for it, so that the UPDATE this causes
 * lets the webhook inject {@code syntheticRefs.node}. Runs on its own executor, never on the request thread.
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
    static final String KUBEMOD_NODE = "ref.kubemod.io/node";
    static final int MAX_ATTEMPTS = 8;

    /** Waits before attempt {@code attempt} (1-based) is repeated. */
    interface Backoff {
        void pause(int attempt) throws InterruptedException;

        /** 100 ms doubling up to 2 s: about 7 s in all, enough for the binding to be stored. */
        Backoff EXPONENTIAL = attempt -> Thread.sleep(Math.min(2000L, 100L << Math.min(attempt - 1, 5)));
    }

    /** Which annotation asks for which node-name annotation. */
    private record Request(String inject, String nodeName) {
    }

    private final ApiClient client;
    private final CoreV1Api core;
    private final Executor executor;
    private final Backoff backoff;
    private final List<Request> requests;

    NodeRefInjector(ApiClient client, Executor executor, Backoff backoff, boolean kubemodCompat) {
        this.client = client;
        this.core = new CoreV1Api(client);
        this.executor = executor;
        this.backoff = backoff;
        this.requests = kubemodCompat
                ? List.of(new Request(INJECT, NODE_NAME), new Request(KUBEMOD_INJECT, KUBEMOD_NODE))
                : List.of(new Request(INJECT, NODE_NAME));
    }

    @Override
    public void bound(String namespace, String pod, String node) {
        try {
            executor.execute(() -> annotate(namespace, pod, node));
        } catch (RejectedExecutionException e) {
            LOG.log(System.Logger.Level.WARNING, "node reference of pod {0}/{1} dropped: queue full or closed",
                    namespace, pod);
        }
    }

    /** What an attempt found: done (patched or nothing to do), or try again. */
    private enum Outcome { DONE, RETRY }

    void annotate(String namespace, String pod, String node) {
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            try {
                if (attempt(namespace, pod, node) == Outcome.DONE) {
                    return;
                }
            } catch (ApiException e) {
                if (e.getCode() == 404) {
                    LOG.log(System.Logger.Level.DEBUG, "pod {0}/{1} is gone", namespace, pod);
                    return;
                }
                LOG.log(System.Logger.Level.DEBUG, "pod {0}/{1}, attempt {2}: HTTP {3}", namespace, pod, attempt,
                        e.getCode());
            }
            if (attempt < MAX_ATTEMPTS) {
                try {
                    backoff.pause(attempt);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        LOG.log(System.Logger.Level.WARNING, "pod {0}/{1} not annotated with node {2} after {3} attempts",
                namespace, pod, node, MAX_ATTEMPTS);
    }

    private Outcome attempt(String namespace, String pod, String node) throws ApiException {
        V1Pod current = core.readNamespacedPod(pod, namespace).execute();
        Map<String, String> annotations = current.getMetadata() == null || current.getMetadata().getAnnotations() == null
                ? Map.of() : current.getMetadata().getAnnotations();
        var wanted = new LinkedHashMap<String, String>();
        for (Request request : requests) {
            if ("true".equals(annotations.get(request.inject())) && !node.equals(annotations.get(request.nodeName()))) {
                wanted.put(request.nodeName(), node);
            }
        }
        if (wanted.isEmpty()) {
            return Outcome.DONE;
        }
        String boundTo = current.getSpec() == null ? null : current.getSpec().getNodeName();
        if (boundTo == null || boundTo.isEmpty()) {
            return Outcome.RETRY; // the binding is admitted but not stored yet
        }
        if (!boundTo.equals(node)) {
            LOG.log(System.Logger.Level.INFO, "pod {0}/{1} is bound to {2}, not {3}: not annotated",
                    namespace, pod, boundTo, node);
            return Outcome.DONE;
        }
        var patch = new V1Patch(patchBody(current.getMetadata().getResourceVersion(), wanted));
        PatchUtils.patch(V1Pod.class, () -> core.patchNamespacedPod(pod, namespace, patch).buildCall(null),
                V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client);
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

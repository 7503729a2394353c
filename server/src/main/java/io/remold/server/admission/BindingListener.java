package io.remold.server.admission;

/**
 * Told by the mutating webhook when a {@code pods/binding} CREATE binds a pod annotated
 * {@code ref.remold.io/inject-node-ref: "true"} to a node. The cluster mode annotates the pod with
 * {@code ref.remold.io/nodename} asynchronously (leader-elected, retried on conflict); never blocks the request.
 */
public interface BindingListener {
    void bound(String namespace, String pod, String node);

    BindingListener NONE = (namespace, pod, node) -> { };
}

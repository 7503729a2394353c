package io.remold.server.admission;

/**
 * Told by the mutating webhook when a {@code pods/binding} CREATE binds a pod to a node (the Binding does not
 * carry the pod's annotations). The cluster mode checks for {@code ref.remold.io/inject-node-ref: "true"} and
 * annotates the pod with {@code ref.remold.io/nodename} asynchronously (leader-elected, retried on conflict);
 * implementations never block the request.
 */
public interface BindingListener {
    void bound(String namespace, String pod, String node);

    BindingListener NONE = (namespace, pod, node) -> { };
}

package io.remold.e2e;

import java.nio.file.Path;

/** kubectl steps the scenarios share. */
final class Steps {
    private Steps() {
    }

    static void ensureNamespace(String name) {
        Cluster.apply("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n");
    }

    /** Waits for the ModRule's Ready condition to be True, as a user would with kubectl wait. */
    static void awaitReady(String rule, String namespace) {
        awaitReady(Manifest.REMOLD_RULES, rule, namespace);
    }

    /** The same for a rule of either API group ({@code modrules.remold.io}, {@code modrules.api.kubemod.io}). */
    static void awaitReady(String resource, String rule, String namespace) {
        var wait = Cluster.kubectl("wait", "--for=condition=Ready=True", resource + "/" + rule, "-n", namespace,
                "--timeout=30s").run();
        if (!wait.ok()) {
            throw new AssertionError(wait + "\n" + Cluster.stored(resource, namespace, rule));
        }
    }

    /**
     * Grants the server's ServiceAccount these verbs on one resource in one namespace, as an operator would for a
     * rule's impact scans ({@code list}) or its applies to existing objects ({@code get}, {@code patch}): a Role and
     * RoleBinding both called {@code name}.
     */
    static void grantServer(String name, String namespace, String group, String resource, String verbs) {
        Cluster.apply("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: Role
                metadata:
                  name: %1$s
                  namespace: %2$s
                rules:
                - apiGroups: ["%3$s"]
                  resources: [%4$s]
                  verbs: [%5$s]
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: RoleBinding
                metadata:
                  name: %1$s
                  namespace: %2$s
                roleRef:
                  apiGroup: rbac.authorization.k8s.io
                  kind: Role
                  name: %1$s
                subjects:
                - kind: ServiceAccount
                  name: remold-server
                  namespace: remold-system
                """.formatted(name, namespace, group, resource, verbs));
    }

    /** Takes back what {@link #grantServer} granted. */
    static void revokeServer(String name, String namespace) {
        Cluster.kubectl("delete", "rolebinding,role", name, "-n", namespace, "--ignore-not-found").run();
    }

    /**
     * Deletes the objects of a manifest file for good: without a kubelet or controller-manager, pods on a node and
     * protected volumes keep their finalizers and grace periods forever, so both are cut short.
     */
    static void delete(Path manifest, String namespace) {
        String file = manifest.toString();
        Cluster.kubectl("delete", "-n", namespace, "-f", file, "--ignore-not-found", "--wait=false", "--grace-period=0",
                "--force").run();
        Cluster.kubectl("patch", "-n", namespace, "-f", file, "--type=merge", "-p",
                "{\"metadata\":{\"finalizers\":null}}").run();
        Cluster.kubectl("wait", "-n", namespace, "-f", file, "--for=delete", "--timeout=30s").run();
    }
}

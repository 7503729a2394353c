package io.remold.server.kube;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Set;
import java.util.UUID;

/**
 * How {@link ClusterMode} reaches and behaves in the cluster. {@code null} components take their defaults.
 *
 * @param kubeconfig      the kubeconfig file to use; {@code null} for the in-cluster configuration (service
 *                        account token and CA of the pod)
 * @param systemNamespace Remold's own namespace (default {@code remold-system})
 * @param kubemodCompat   also honour KubeMod's names: the namespace label {@code admission.kubemod.io/ignore} and
 *                        the pod annotation {@code ref.kubemod.io/inject-node-ref} (answered with
 *                        {@code ref.kubemod.io/node} besides {@code ref.remold.io/nodename}); and
 *                        add {@code api.kubemod.io} to {@code ruleCrds}. Without it, {@code api.kubemod.io}
 *                        ModRules are still watched once their CRD is served.
 * @param kubemodSystemNamespace the namespace whose {@code api.kubemod.io} rules are cluster-wide, as KubeMod's
 *                        own; null for none (always without {@code kubemodCompat}): such rules are then namespaced
 * @param leaseNamespace  namespace of the leader-election Lease (default: the system namespace)
 * @param leaseName       name of the Lease (default {@code remold-leader})
 * @param identity        this replica's name in the Lease (default: host name, which is the pod name in a
 *                        cluster, plus a random suffix so that two processes on one host never share it)
 * @param ruleCrds        API groups whose rule CRDs were installed with the server: it is not synced until it
 *                        watches every rule resource of theirs (the others are watched whenever they are served)
 */
public record ClusterModeConfig(String systemNamespace, boolean kubemodCompat, String kubemodSystemNamespace,
                                String leaseNamespace, String leaseName, String identity,
                                Set<String> ruleCrds) {
    public static final String DEFAULT_SYSTEM_NAMESPACE = "remold-system";
    public static final String DEFAULT_LEASE_NAME = "remold-leader";

    public ClusterModeConfig {
        if (systemNamespace == null || systemNamespace.isBlank()) {
            systemNamespace = DEFAULT_SYSTEM_NAMESPACE;
        }
        if (!kubemodCompat || kubemodSystemNamespace != null && kubemodSystemNamespace.isBlank()) {
            kubemodSystemNamespace = null;
        }
        if (leaseNamespace == null || leaseNamespace.isBlank()) {
            leaseNamespace = systemNamespace;
        }
        if (leaseName == null || leaseName.isBlank()) {
            leaseName = DEFAULT_LEASE_NAME;
        }
        ruleCrds = ruleCrds == null ? Set.of() : Set.copyOf(ruleCrds);
        if (kubemodCompat && !ruleCrds.contains(ClusterMode.KUBEMOD_GROUP)) {
            var groups = new java.util.HashSet<>(ruleCrds);
            groups.add(ClusterMode.KUBEMOD_GROUP);
            ruleCrds = Set.copyOf(groups);
        }
        if (identity == null || identity.isBlank()) {
            identity = hostName() + "_" + UUID.randomUUID().toString().substring(0, 8);
        }
    }

    private static String hostName() {
        String host = System.getenv("HOSTNAME");
        if (host != null && !host.isBlank()) {
            return host;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "remold";
        }
    }
}

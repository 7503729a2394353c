package io.remold.server.kube;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;

/**
 * How {@link ClusterMode} reaches and behaves in the cluster. {@code null} components take their defaults.
 *
 * @param kubeconfig      the kubeconfig file to use; {@code null} for the in-cluster configuration (service
 *                        account token and CA of the pod)
 * @param systemNamespace Remold's own namespace (default {@code remold-system})
 * @param kubemodCompat   also honour KubeMod's names: the namespace label {@code admission.kubemod.io/ignore} and
 *                        the pod annotation {@code ref.kubemod.io/inject-node-ref} (answered with
 *                        {@code ref.kubemod.io/node} besides {@code ref.remold.io/nodename}). KubeMod's
 *                        {@code api.kubemod.io} ModRules are watched whenever their CRD is served, whatever this says.
 * @param leaseNamespace  namespace of the leader-election Lease (default: the system namespace)
 * @param leaseName       name of the Lease (default {@code remold-leader})
 * @param identity        this replica's name in the Lease (default: host name, which is the pod name in a
 *                        cluster, plus a random suffix so that two processes on one host never share it)
 */
public record ClusterModeConfig(String systemNamespace, boolean kubemodCompat,
                                String leaseNamespace, String leaseName, String identity) {
    public static final String DEFAULT_SYSTEM_NAMESPACE = "remold-system";
    public static final String DEFAULT_LEASE_NAME = "remold-leader";

    public ClusterModeConfig {
        if (systemNamespace == null || systemNamespace.isBlank()) {
            systemNamespace = DEFAULT_SYSTEM_NAMESPACE;
        }
        if (leaseNamespace == null || leaseNamespace.isBlank()) {
            leaseNamespace = systemNamespace;
        }
        if (leaseName == null || leaseName.isBlank()) {
            leaseName = DEFAULT_LEASE_NAME;
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

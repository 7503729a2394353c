package io.remold.server.kube;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.Config;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The server's two connections to the API server, shared by everything in cluster mode (rules, references, script
 * events): one for requests, with a read timeout, and one for watches, without (the API server ends them). Each
 * client is a connection pool and threads of its own, so one pair serves all.
 */
public record KubeClients(ApiClient requests, ApiClient watches) {
    public KubeClients {
        watches.setReadTimeout(0);
    }

    /**
     * Connects with the kubeconfig ({@code null}: the pod's service account).
     *
     * @throws IOException if the kubeconfig or the in-cluster credentials cannot be read
     */
    public static KubeClients connect(Path kubeconfig) throws IOException {
        ApiClient requests = client(kubeconfig);
        requests.setReadTimeout((int) Duration.ofSeconds(30).toMillis());
        return new KubeClients(requests, client(kubeconfig));
    }

    private static ApiClient client(Path kubeconfig) throws IOException {
        return kubeconfig != null ? Config.fromConfig(kubeconfig.toString()) : Config.fromCluster();
    }
}

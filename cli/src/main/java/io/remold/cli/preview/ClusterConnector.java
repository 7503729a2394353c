package io.remold.cli.preview;

import io.remold.cli.UsageException;

import java.nio.file.Path;

/** Connects {@code preview} to a live cluster: the server module has the Kubernetes client that this needs. */
@FunctionalInterface
public interface ClusterConnector {
    /**
     * The cluster of {@code kubeconfig}'s context {@code context} (null: its current context), read at most
     * {@code qps} requests a second.
     */
    ObjectSource connect(Path kubeconfig, String context, double qps);

    /** remold-cli.jar's: it has no Kubernetes client. */
    ClusterConnector NONE = (kubeconfig, context, qps) -> {
        throw new UsageException("--kubeconfig needs the server's jar or image (remold.jar, which has the Kubernetes"
                + " client); remold-cli.jar previews folders (--objects) only");
    };
}

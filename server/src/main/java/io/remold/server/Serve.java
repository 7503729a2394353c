package io.remold.server;

import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/** A running server in folder mode: rule store, folder watcher, HTTPS endpoints. */
final class Serve implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Serve.class.getName());

    private final RuleStore store;
    private final TlsFiles tls;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final WebhookServer server;

    private Serve(ServerConfig config, PrintStream out) {
        var metrics = new Metrics();
        this.store = new RuleStore(config.systemNamespace(), metrics);
        metrics.syncedBy(store::isSynced);
        if (config.kubeconfig().isPresent() || config.inCluster()) {
            throw new IllegalArgumentException("cluster mode (--kubeconfig, --in-cluster) is not available yet in "
                    + "this build; use --rules DIR");
        }
        config.rules().ifPresent(dir -> {
            if (!Files.isDirectory(dir)) {
                LOG.warning("rule folder " + dir + " does not exist (yet): starting without rules");
            }
            var folder = new RuleFolder(dir, store);
            folder.scan();
            resources.add(new ChangePoller("remold-rules-watch", folder::files, config.pollInterval(), folder::scan));
        });
        store.synced();
        this.tls = config.tlsCert().isPresent()
                ? new TlsFiles(config.tlsCert().get(), config.tlsKey().orElseThrow())
                : TlsFiles.generateSelfSigned(config.generatedCertDir().orElseGet(Serve::tempDir), Instant.now());
        if (config.tlsCert().isEmpty()) {
            out.println("Generated a self-signed certificate; CA file: " + tls.ca());
        }
        this.server = new WebhookServer(config.host(), config.port(), tls, config.pollInterval(),
                config.shutdownGrace(), store, ClusterRefs.NONE, BindingListener.NONE, metrics,
                config.maxBodyBytes());
        LOG.info("listening on https://" + config.host() + ":" + server.port() + " with "
                + store.engine().ruleCount() + " rules");
    }

    static Serve start(ServerConfig config, PrintStream out) {
        return new Serve(config, out);
    }

    private static Path tempDir() {
        try {
            return Files.createTempDirectory("remold-tls");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the generated certificate", e);
        }
    }

    int port() {
        return server.port();
    }

    RuleStore store() {
        return store;
    }

    TlsFiles tls() {
        return tls;
    }

    @Override
    public void close() {
        server.close();
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                LOG.warning("closing " + resource + ": " + e.getMessage());
            }
        }
    }
}

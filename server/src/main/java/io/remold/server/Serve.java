package io.remold.server;

import io.remold.rules.Snapshot;
import io.remold.rules.impact.ImpactSink;
import io.remold.rules.impact.ScanListener;
import io.remold.scripting.ScriptHost;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import io.remold.server.existing.ImpactScans;
import io.remold.server.existing.ServerSideApply;
import io.remold.server.files.ChangePoller;
import io.remold.server.http.HttpLimits;
import io.remold.server.http.Metrics;
import io.remold.server.http.OtlpTracing;
import io.remold.server.http.ShadowWorker;
import io.remold.server.http.Tracing;
import io.remold.server.http.TlsFiles;
import io.remold.server.http.WebhookServer;
import io.remold.server.kube.ClusterMode;
import io.remold.server.kube.ClusterModeConfig;
import io.remold.server.kube.ClusterReferences;
import io.remold.server.kube.ClusterScriptEvents;
import io.remold.server.kube.Informers;
import io.remold.server.kube.KubeClients;
import io.remold.server.reports.ReportSink;
import io.remold.server.rules.RuleFolder;
import io.remold.server.rules.RuleStore;

import jakarta.json.JsonObject;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * A running server: rule store fed by a folder and/or the cluster, HTTPS endpoints. Without a cluster the store
 * is ready once the folder has been read; with one, once the informers have listed.
 */
final class Serve implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Serve.class.getName());

    private final RuleStore store;
    private final TlsFiles tls;
    /** Closed in reverse order of opening: the server first, so that in-flight requests still see the rules. */
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final WebhookServer server;
    private final BindingListener bindings;

    private Serve(ServerConfig config, PrintStream out) {
        var metrics = new Metrics();
        // Every verdict's one composition point: the metrics, and the reports when the leader writes them (cluster
        // mode; a folder server has no API to write them to).
        boolean clusterMode = config.kubeconfig().isPresent() || config.inCluster();
        ReportSink reports = clusterMode && config.reports().enabled()
                ? new ReportSink(config.reports().limits(), Clock.systemUTC()) : null;
        List<ImpactSink> sinks = reports == null ? List.of(metrics) : List.of(metrics, reports);
        ImpactSink impact = (family, rule, mode, source, object, verdict) -> sinks.forEach(
                sink -> sink.record(family, rule, mode, source, object, verdict));
        this.store = new RuleStore(config.systemNamespace(), config.allowHttpRef(), config.kinitiras());
        store.onSnapshot(metrics::installed);
        metrics.externalData(store::writeMetrics);
        store.kubemodSystemNamespace(config.kubemodSystem());
        store.tenantScripts(config.tenantScripts());
        metrics.syncedBy(store::isReady);
        metrics.rulesNotReadyBy(store::notReadyCount);
        resources.push(store); // closed last: the rule sources and the server stop first
        try {
            config.rules().ifPresent(dir -> {
                if (!Files.isDirectory(dir)) {
                    LOG.warning("rule folder " + dir + " does not exist (yet): starting without its rules");
                }
                var folder = new RuleFolder(dir, store);
                folder.scan();
                resources.push(new ChangePoller("remold-rules-watch", folder::files, config.pollInterval(),
                        folder::scan));
            });
            ClusterRefs refs = ClusterRefs.NONE;
            BindingListener bindings = BindingListener.NONE;
            if (clusterMode) {
                KubeClients clients = connect(config);
                var informers = new Informers(clients); // shared by the three below, closed after them
                resources.push(informers);
                ClusterReferences references = ClusterReferences.connect(informers, config.allowReferences());
                resources.push(references);
                store.references(references);
                store.onSnapshot(snapshot -> references.use(snapshot.referencedKinds()));
                // The enforced scripts' host and the Shadow scripts' own: each receives the events of its resources.
                List<Function<Snapshot, Optional<Snapshot>>> parts = List.of(Optional::of, Snapshot::shadow);
                for (Function<Snapshot, Optional<Snapshot>> part : parts) {
                    ClusterScriptEvents scriptEvents = ClusterScriptEvents.connect(informers);
                    resources.push(scriptEvents);
                    store.onSnapshot(snapshot -> part.apply(snapshot).ifPresent(rules -> rules
                            .runtime(ScriptHost.class)
                            .ifPresent(host -> scriptEvents.use(host, rules.watchedResources()))));
                }
                // The leader's impact scans (closed after the cluster mode that feeds them rules), and its writes to
                // existing objects for rules with existing: Apply (skipped while another replica leads).
                var leading = new AtomicReference<ClusterMode>();
                var writes = new ServerSideApply(clients.requests(), config.existingApply(),
                        () -> leading.get() != null && leading.get().leader());
                var scans = new ImpactScans(clients.requests(), store, config.impact(),
                        config.systemNamespace(), config.kubemodSystem(), impact,
                        reports == null ? ScanListener.NONE : reports, writes, Clock.systemUTC());
                resources.push(scans);
                ClusterMode cluster = ClusterMode.start(new ClusterModeConfig(config.systemNamespace(),
                        config.kubemodCompat(), config.kubemodSystem(), null, null, null, config.ruleCrds()), store,
                        informers, scans);
                resources.push(cluster);
                leading.set(cluster);
                metrics.leaderBy(cluster::leader);
                if (reports != null) {
                    store.onSnapshot(snapshot -> reports.retain(snapshot.outcomeNames()));
                    cluster.writeReports(reports, config.reports().interval());
                }
                ClusterRefs namespaces = cluster.refs();
                scans.start(cluster::leader, name -> namespaces.namespace(name)
                        .filter(JsonObject.class::isInstance).map(JsonObject.class::cast).orElse(null));
                refs = namespaces;
                // The server runs tenants' JavaScript: it patches pods only when asked to (F15).
                bindings = config.nodeAnnotations() ? cluster.bindings() : BindingListener.NONE;
            } else {
                store.synced();
            }
            this.tls = (config.tlsCert().isPresent()
                    ? new TlsFiles(config.tlsCert().get(), config.tlsKey().orElseThrow())
                    : TlsFiles.generateSelfSigned(config.generatedCertDir().orElseGet(Serve::tempDir), Instant.now()))
                    .requiringClientsOf(config.clientCa());
            if (config.tlsCert().isEmpty()) {
                out.println("Generated a self-signed certificate for localhost and 127.0.0.1; CA file: " + tls.ca());
            }
            this.bindings = bindings;
            var shadow = new ShadowWorker(config.shadowQueue(), config.maxBodyBytesInFlight(), config.shadowCpuShare(),
                    impact, metrics);
            resources.push(shadow); // closed after the server: requests in flight may still hand it work
            Tracing tracing = config.otlpEndpoint().<Tracing>map(endpoint -> new OtlpTracing(endpoint, "remold"))
                    .orElse(Tracing.OFF);
            resources.push(tracing); // closed after the server: the last requests' spans are exported
            this.server = new WebhookServer(config.host(), config.port(),
                    config.adminPort() == 0 ? OptionalInt.empty() : OptionalInt.of(config.adminPort()), tls,
                    config.pollInterval(), config.shutdownGrace(), config.drain(), store, refs, bindings, metrics,
                    tracing, new HttpLimits(config.maxBodyBytes(), config.maxBodyBytesInFlight(), config.readTimeout()),
                    config.requestBudget(), shadow, config.provenanceAnnotation());
            resources.push(server);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        LOG.info("listening on https://" + config.host() + ":" + server.port()
                + (config.adminPort() == 0 ? "" : " (admin: http://" + config.host() + ":" + server.adminPort() + ")")
                + (config.clientCa().isPresent() ? " requiring client certificates" : "") + " with "
                + store.engine().ruleCount() + " rules" + (store.isReady() ? "" : " (cluster rules still syncing)"));
    }

    private static KubeClients connect(ServerConfig config) {
        try {
            return KubeClients.connect(config.kubeconfig().orElse(null));
        } catch (IOException e) {
            throw cannotConnect(config, e);
        }
    }

    private static UncheckedIOException cannotConnect(ServerConfig config, IOException e) {
        return new UncheckedIOException("cannot connect to the cluster ("
                + config.kubeconfig().map(Path::toString).orElse("in-cluster configuration") + "): " + e.getMessage(), e);
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

    int adminPort() {
        return server.adminPort();
    }

    RuleStore store() {
        return store;
    }

    /** Who is told of {@code pods/binding} requests. */
    BindingListener bindings() {
        return bindings;
    }

    TlsFiles tls() {
        return tls;
    }

    /** Drains the server (in-flight requests finish), then stops the rule sources. */
    @Override
    public void close() {
        while (!resources.isEmpty()) {
            AutoCloseable resource = resources.pop();
            try {
                resource.close();
            } catch (Exception e) {
                LOG.warning("closing " + resource + ": " + e.getMessage());
            }
        }
    }
}

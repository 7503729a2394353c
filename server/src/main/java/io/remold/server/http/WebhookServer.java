package io.remold.server.http;

import io.helidon.common.tls.Tls;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http2.Http2Config;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import io.remold.server.files.ChangePoller;
import io.remold.server.rules.RuleStore;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.logging.Logger;

/**
 * The HTTPS server with the webhook endpoints, health and readiness, and a plain-HTTP admin listener with health,
 * readiness and metrics, outside the webhook listener's request bound (so that stalled webhook requests never fail
 * a probe) and off the port the API server and tenants' pods can reach (metrics name every tenant's rules). The
 * certificate files are watched and a changed set is loaded into the running server for new connections.
 */
public final class WebhookServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(WebhookServer.class.getName());
    private static final byte[] OK = "ok\n".getBytes(StandardCharsets.US_ASCII);
    private static final String ADMIN = "admin";
    /**
     * Requests in flight at once; more are answered 503 at once, and the API server applies the webhook's failure
     * policy. Without a bound an open-loop HTTP/2 client faster than the server made Helidon start a virtual thread
     * per stream until the 128 MB heap ran out (8,000 streams on 16 connections).
     */
    static final int MAX_CONCURRENT_REQUESTS = 256;
    /**
     * Open connections per listener; more wait in the accept backlog. Each TLS connection holds buffers (tens of KB),
     * so unbounded connections were a way to the heap's end; the API server needs a few.
     */
    static final int MAX_CONNECTIONS = 512;
    /** The admin listener serves probes and a scrape: a few requests at once, each without a body. */
    static final int MAX_ADMIN_REQUESTS = 32;
    /** Go's HTTP/2 server default: a client that wants more streams opens another connection or waits. */
    private static final int MAX_STREAMS_PER_CONNECTION = 250;

    private final WebServer server;
    private final RequestBodies bodies;
    private final ChangePoller certificateWatch;
    private final Duration drain;
    private final Metrics metrics;
    private volatile boolean draining;

    /**
     * @param adminPort the admin listener's port (0: any free port), or empty for none
     * @param drain how long {@link #close()} keeps serving before it stops: not ready, and every response closes its
     *              connection. A client such as the API server keeps connections to a pod after the pod has left the
     *              Service's endpoints; closing them between requests would make a request written at that moment
     *              fail, whereas {@code Connection: close} on a response sends the next one over a new connection,
     *              to a pod that stays.
     * @param provenanceAnnotation whether a patched object carries {@code remold.io/changed-by}
     */
    public WebhookServer(String host, int port, OptionalInt adminPort, TlsFiles tls, Duration pollInterval,
                  Duration shutdownGrace, Duration drain, RuleStore store, ClusterRefs refs, BindingListener bindings,
                  Metrics metrics, Tracing tracing, HttpLimits limits, Duration requestBudget, ShadowWorker shadow,
                  boolean provenanceAnnotation) {
        this.drain = drain;
        this.metrics = metrics;
        this.bodies = new RequestBodies(limits);
        var endpoints = new AdmissionEndpoints(store, refs, bindings, metrics, tracing, bodies, requestBudget, shadow,
                provenanceAnnotation);
        var routing = HttpRouting.builder();
        routing.addFilter((chain, req, res) -> {
            if (draining) {
                res.header(HeaderValues.CONNECTION_CLOSE);
            }
            chain.proceed();
        });
        endpoints.register(routing);
        probes(routing, store);
        var builder = WebServer.builder()
                .host(host)
                .port(port)
                .shutdownHook(false)
                .shutdownGracePeriod(shutdownGrace)
                .connectionOptions(options -> options.tcpNoDelay(true))
                .maxConcurrentRequests(MAX_CONCURRENT_REQUESTS)
                .maxTcpConnections(MAX_CONNECTIONS)
                // Listed (also for the deadlines): with only the HTTP/2 configuration listed, HTTP/1.1 requests were
                // not held to the bound above (WebhookServerTest fails).
                .addProtocol(Http1Config.builder().addReceiveListener(bodies.deadlines()).build())
                .addProtocol(Http2Config.builder().maxConcurrentStreams(MAX_STREAMS_PER_CONNECTION).build())
                .tls(loaded(tls))
                .routing(routing);
        adminPort.ifPresent(admin -> builder.putSocket(ADMIN, socket -> socket
                .host(host)
                .port(admin)
                .maxConcurrentRequests(MAX_ADMIN_REQUESTS)
                .maxTcpConnections(MAX_CONNECTIONS)
                .addProtocol(Http1Config.builder().addReceiveListener(bodies.deadlines()).build())
                .routing(adminRouting -> probes(adminRouting, store).get("/metrics", (req, res) -> res
                        .header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4")
                        .send(metrics.scrape())))));
        this.server = builder.build().start();
        this.certificateWatch = new ChangePoller("remold-tls-watch", tls::files, pollInterval, () -> reload(tls));
    }

    /** The health and readiness probes, after a filter that ends each request's read deadline once answered. */
    private HttpRouting.Builder probes(HttpRouting.Builder routing, RuleStore store) {
        return routing.addFilter((chain, req, res) -> {
            try {
                chain.proceed();
            } finally {
                bodies.deadlines().requestDone();
            }
        }).get("/healthz", (req, res) -> res.header(HeaderNames.CONTENT_TYPE, "text/plain").send(OK))
                .get("/readyz", (req, res) -> {
                    boolean ready = !draining && store.isReady();
                    res.status(ready ? Status.OK_200 : Status.SERVICE_UNAVAILABLE_503)
                            .header(HeaderNames.CONTENT_TYPE, "text/plain")
                            .send(ready ? "ok\n" : draining ? "shutting down\n" : "rules not synced yet\n");
                });
    }

    /** The files' TLS settings, their certificate's expiry counted. */
    private Tls loaded(TlsFiles files) {
        Tls tls = files.load();
        metrics.certificate(files.notAfter());
        return tls;
    }

    private void reload(TlsFiles files) {
        Tls tls = loaded(files);
        server.reloadTls(tls);
        LOG.info("TLS certificate reloaded from " + files.cert()
                + files.clientCa().map(ca -> ", client CA from " + ca).orElse(""));
    }

    public int port() {
        return server.port();
    }

    /**
     * Bytes of max-body-bytes-in-flight that no request holds: a request reserves its Content-Length once its handler
     * runs, which is how tests see that the requests they stall hold their request slots.
     */
    long bodyBytesAvailable() {
        return bodies.bytesAvailable();
    }

    /** The admin listener's port, or -1 without one. */
    public int adminPort() {
        return server.port(ADMIN);
    }

    /**
     * Drains for the configured time (see the constructor), then stops accepting connections and waits up to the
     * grace period for requests in flight.
     */
    @Override
    public void close() {
        if (drain.isPositive()) {
            draining = true;
            LOG.info("draining for " + drain.toSeconds() + " s before stopping");
            try {
                Thread.sleep(drain);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        certificateWatch.close();
        server.stop();
        bodies.close();
    }
}

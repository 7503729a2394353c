package io.remold.server;

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

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.logging.Logger;

/**
 * The HTTPS server: webhook endpoints, health, readiness and metrics. The certificate files are watched and a
 * changed pair is loaded into the running server for new connections.
 */
final class WebhookServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(WebhookServer.class.getName());
    private static final byte[] OK = "ok\n".getBytes(StandardCharsets.US_ASCII);
    /**
     * Requests in flight at once; more are answered 503 at once, and the API server applies the webhook's failure
     * policy. Without a bound an open-loop HTTP/2 client faster than the server made Helidon start a virtual thread
     * per stream until the 128 MB heap ran out (8,000 streams on 16 connections).
     */
    static final int MAX_CONCURRENT_REQUESTS = 256;
    /** Go's HTTP/2 server default: a client that wants more streams opens another connection or waits. */
    private static final int MAX_STREAMS_PER_CONNECTION = 250;

    private final WebServer server;
    private final ChangePoller certificateWatch;
    private final Duration drain;
    private volatile boolean draining;

    /**
     * @param drain how long {@link #close()} keeps serving before it stops: not ready, and every response closes its
     *              connection. A client such as the API server keeps connections to a pod after the pod has left the
     *              Service's endpoints; closing them between requests would make a request written at that moment
     *              fail, whereas {@code Connection: close} on a response sends the next one over a new connection,
     *              to a pod that stays.
     */
    WebhookServer(String host, int port, TlsFiles tls, Duration pollInterval, Duration shutdownGrace, Duration drain,
                  RuleStore store, ClusterRefs refs, BindingListener bindings, Metrics metrics, long maxBodyBytes) {
        this.drain = drain;
        var endpoints = new AdmissionEndpoints(store, refs, bindings, metrics, maxBodyBytes);
        var routing = HttpRouting.builder();
        routing.addFilter((chain, req, res) -> {
            if (draining) {
                res.header(HeaderValues.CONNECTION_CLOSE);
            }
            chain.proceed();
        });
        endpoints.register(routing);
        routing.get("/healthz", (req, res) -> res.header(HeaderNames.CONTENT_TYPE, "text/plain").send(OK))
                .get("/readyz", (req, res) -> {
                    boolean ready = !draining && store.isSynced();
                    res.status(ready ? Status.OK_200 : Status.SERVICE_UNAVAILABLE_503)
                            .header(HeaderNames.CONTENT_TYPE, "text/plain")
                            .send(ready ? "ok\n" : draining ? "shutting down\n" : "rules not synced yet\n");
                })
                .get("/metrics", (req, res) -> res.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4")
                        .send(metrics.scrape()));
        this.server = WebServer.builder()
                .host(host)
                .port(port)
                .shutdownHook(false)
                .shutdownGracePeriod(shutdownGrace)
                .connectionOptions(options -> options.tcpNoDelay(true))
                .maxConcurrentRequests(MAX_CONCURRENT_REQUESTS)
                // Listed although it is the default: with only the HTTP/2 configuration listed, HTTP/1.1 requests
                // were not held to the bound above (WebhookServerTest fails).
                .addProtocol(Http1Config.create())
                .addProtocol(Http2Config.builder().maxConcurrentStreams(MAX_STREAMS_PER_CONNECTION).build())
                .tls(tls.load())
                .routing(routing)
                .build()
                .start();
        this.certificateWatch = new ChangePoller("remold-tls-watch", () -> List.of(tls.cert(), tls.key()),
                pollInterval, () -> reload(tls));
    }

    private void reload(TlsFiles files) {
        Tls tls = files.load();
        server.reloadTls(tls);
        LOG.info("TLS certificate reloaded from " + files.cert());
    }

    int port() {
        return server.port();
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
    }
}

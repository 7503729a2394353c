package io.remold.server.http;

import io.remold.rules.RuleDocuments;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import io.remold.server.rules.RuleStore;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalInt;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** An in-process webhook server on a free loopback port with a generated certificate, and a client for it. */
public final class TestServer implements AutoCloseable {
    final Path dir;
    final TlsFiles tls;
    final RuleStore store;
    final Metrics metrics = new Metrics();
    /** Every verdict the server records, beside the metrics. */
    final RecordingImpactSink verdicts = new RecordingImpactSink();
    /** A whole core for the Shadow evaluations: a cold first one may take long, and the tests count every verdict. */
    final ShadowWorker shadow = new ShadowWorker(1024, 32 << 20, 1, (family, rule, mode, source, object, verdict) -> {
        metrics.record(family, rule, mode, source, object, verdict);
        verdicts.record(family, rule, mode, source, object, verdict);
    }, metrics);
    final WebhookServer server;
    final HttpClient client;

    /** The server's default request-budget-ms. */
    static final Duration REQUEST_BUDGET = Duration.ofMillis(4000);

    /** A read timeout no test reaches unless it stalls on purpose. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    TestServer(Path dir, long maxBodyBytes, ClusterRefs refs, BindingListener bindings) {
        this(dir, maxBodyBytes, refs, bindings, Duration.ZERO);
    }

    TestServer(Path dir, long maxBodyBytes, ClusterRefs refs, BindingListener bindings, Duration drain) {
        this(dir, maxBodyBytes, refs, bindings, drain, REQUEST_BUDGET);
    }

    TestServer(Path dir, long maxBodyBytes, ClusterRefs refs, BindingListener bindings, Duration drain,
               Duration requestBudget) {
        this(dir, new HttpLimits(maxBodyBytes, Math.max(maxBodyBytes, 32 << 20), READ_TIMEOUT), refs, bindings, drain,
                null, requestBudget);
    }

    /** @param clientCa the CA whose client certificates the server requires, or null for none */
    TestServer(Path dir, HttpLimits limits, ClusterRefs refs, BindingListener bindings, Duration drain,
               Path clientCa) {
        this(dir, limits, refs, bindings, drain, clientCa, REQUEST_BUDGET);
    }

    private TestServer(Path dir, HttpLimits limits, ClusterRefs refs, BindingListener bindings, Duration drain,
                       Path clientCa, Duration requestBudget) {
        this(dir, limits, refs, bindings, drain, clientCa, requestBudget, Tracing.OFF, false);
    }

    /** A server whose admission requests are traced by {@code tracing}. */
    TestServer(Path dir, Tracing tracing) {
        this(dir, new HttpLimits(1 << 20, 32 << 20, READ_TIMEOUT), ClusterRefs.NONE, BindingListener.NONE, Duration.ZERO,
                null, REQUEST_BUDGET, tracing, false);
    }

    /** A server run with the option provenance-annotation set to {@code provenanceAnnotation}. */
    TestServer(Path dir, boolean provenanceAnnotation) {
        this(dir, new HttpLimits(1 << 20, 32 << 20, READ_TIMEOUT), ClusterRefs.NONE, BindingListener.NONE, Duration.ZERO,
                null, REQUEST_BUDGET, Tracing.OFF, provenanceAnnotation);
    }

    private TestServer(Path dir, HttpLimits limits, ClusterRefs refs, BindingListener bindings, Duration drain,
                       Path clientCa, Duration requestBudget, Tracing tracing, boolean provenanceAnnotation) {
        this.dir = dir;
        this.tls = TlsFiles.generateSelfSigned(dir.resolve("tls"), Instant.now())
                .requiringClientsOf(java.util.Optional.ofNullable(clientCa));
        this.store = new RuleStore("remold-system");
        store.onSnapshot(metrics::installed);
        metrics.externalData(store::writeMetrics);
        metrics.syncedBy(store::isReady);
        this.server = new WebhookServer("127.0.0.1", 0, OptionalInt.of(0), tls, Duration.ofMillis(50),
                Duration.ofSeconds(1), drain, store, refs, bindings, metrics, tracing, limits, requestBudget, shadow,
                provenanceAnnotation);
        this.client = client(tls.ca());
    }

    /** A client that trusts exactly the given CA files. */
    public static HttpClient client(Path... caFiles) {
        return client(null, caFiles);
    }

    /** A client presenting the certificate of {@code keys} (null: none) and trusting exactly the given CA files. */
    static HttpClient client(KeyManager[] keys, Path... caFiles) {
        try {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            var certificates = CertificateFactory.getInstance("X.509");
            for (int i = 0; i < caFiles.length; i++) {
                try (InputStream in = Files.newInputStream(caFiles[i])) {
                    trust.setCertificateEntry("ca" + i, certificates.generateCertificate(in));
                }
            }
            var factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, factory.getTrustManagers(), null);
            return HttpClient.newBuilder().sslContext(context).version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Puts every rule of a YAML text (of any family, with its mode) in the store, then marks it synced. */
    void rules(String yaml) {
        var entries = RuleDocuments.read(yaml, "rules.yaml");
        for (int i = 0; i < entries.size(); i++) {
            put("rules.yaml#" + i, entries.get(i));
        }
        store.synced();
    }

    private void put(String key, RuleDocuments.Entry entry) {
        switch (entry) {
            case RuleDocuments.RuleEntry r -> store.put(key, r.rule(), r.controls());
            case RuleDocuments.FamilyEntry<?> f -> putFamilyRule(key, f);
        }
    }

    private <R> void putFamilyRule(String key, RuleDocuments.FamilyEntry<R> entry) {
        store.put(key, entry.family(), entry.rule(), entry.controls());
    }

    URI uri(String path) {
        return URI.create("https://localhost:" + server.port() + path);
    }

    HttpResponse<String> post(String path, String contentType, String body) {
        return send(client, HttpRequest.newBuilder(uri(path)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    HttpResponse<String> get(String path) {
        return send(client, HttpRequest.newBuilder(uri(path)).GET().build());
    }

    /** A GET on the plain-HTTP admin listener. */
    HttpResponse<String> getAdmin(String path) {
        try (var plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            return send(plain, HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + path))
                    .timeout(Duration.ofSeconds(10)).GET().build());
        }
    }

    public static HttpResponse<String> send(HttpClient client, HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.close();
        shadow.close();
        client.close();
        store.close();
    }
}

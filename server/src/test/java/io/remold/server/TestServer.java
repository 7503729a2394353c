package io.remold.server;

import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
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

/** An in-process webhook server on a free loopback port with a generated certificate, and a client for it. */
final class TestServer implements AutoCloseable {
    final Path dir;
    final TlsFiles tls;
    final RuleStore store;
    final Metrics metrics = new Metrics();
    final WebhookServer server;
    final HttpClient client;

    TestServer(Path dir, long maxBodyBytes, ClusterRefs refs, BindingListener bindings) {
        this(dir, maxBodyBytes, refs, bindings, Duration.ZERO);
    }

    TestServer(Path dir, long maxBodyBytes, ClusterRefs refs, BindingListener bindings, Duration drain) {
        this.dir = dir;
        this.tls = TlsFiles.generateSelfSigned(dir.resolve("tls"), Instant.now());
        this.store = new RuleStore("remold-system", metrics);
        metrics.syncedBy(store::isSynced);
        this.server = new WebhookServer("127.0.0.1", 0, tls, Duration.ofMillis(50), Duration.ofSeconds(1), drain,
                store, refs, bindings, metrics, maxBodyBytes);
        this.client = client(tls.ca());
    }

    /** A client that trusts exactly the given CA files. */
    static HttpClient client(Path... caFiles) {
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
            context.init(null, factory.getTrustManagers(), null);
            return HttpClient.newBuilder().sslContext(context).version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
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

    static HttpResponse<String> send(HttpClient client, HttpRequest request) {
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
        client.close();
        store.close();
    }
}

package io.remold.e2e;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;

/**
 * AdmissionReviews POSTed straight to the server's webhook port, as the review's {@code review.py} did: either as
 * kube-apiserver (with the client certificate of its AdmissionConfiguration) or as any pod on the network (none).
 * Trusts the control plane's CA, which issued the server's certificate.
 */
final class WebhookClient {
    /** The status, the body and how long the answer took. */
    record Answer(int status, String body, Duration took) {
    }

    private final HttpClient http;

    private WebhookClient(SSLContext tls) {
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(tls)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** Presents the certificate kube-apiserver presents to webhooks. */
    static WebhookClient asApiServer() {
        return new WebhookClient(tls(true));
    }

    /** Presents no client certificate. */
    static WebhookClient anonymous() {
        return new WebhookClient(tls(false));
    }

    Answer post(String url, String body) throws IOException {
        var request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        long start = System.nanoTime();
        try {
            var response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body(), Duration.ofNanos(System.nanoTime() - start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    Answer get(String url) throws IOException {
        var request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build();
        try {
            var response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body(), Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** An {@code admission.k8s.io/v1} CREATE review of the given object (JSON text, inserted as is). */
    static String review(String namespace, String kind, String resource, String objectJson) {
        return """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"e2e-hostile",\
                "kind":{"group":"","version":"v1","kind":"%s"},"resource":{"group":"","version":"v1","resource":"%s"},\
                "namespace":"%s","operation":"CREATE","userInfo":{"username":"mallory"},"object":%s}}"""
                .formatted(kind, resource, namespace, objectJson);
    }

    /** A review of a one-container Pod with the given annotations (a JSON object's text). */
    static String podReview(String namespace, String name, String annotationsJson) {
        return review(namespace, "Pod", "pods", """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s","annotations":%s},\
                "spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}""".formatted(name, namespace,
                annotationsJson));
    }

    /** TLS trusting the e2e CA, with or without the webhook client certificate. */
    static SSLContext tls(boolean clientCertificate) {
        try {
            var trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("e2e-ca", certificate(Cluster.CA));
            var trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            var context = SSLContext.getInstance("TLS");
            if (!clientCertificate) {
                context.init(null, trustManagers.getTrustManagers(), null);
                return context;
            }
            var keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            char[] password = new char[0];
            keys.setKeyEntry("client", privateKey(Cluster.WEBHOOK_CLIENT_KEY), password,
                    new Certificate[] {certificate(Cluster.WEBHOOK_CLIENT_CERT)});
            var keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, password);
            context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot set up TLS from " + Cluster.STATE.resolve("pki"), e);
        }
    }

    private static Certificate certificate(Path pem) throws GeneralSecurityException {
        return CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(Cluster.read(pem).getBytes(StandardCharsets.US_ASCII)));
    }

    /** openssl's {@code -nodes} keys: unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY}). */
    private static PrivateKey privateKey(Path pem) throws GeneralSecurityException {
        String base64 = Cluster.read(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }
}

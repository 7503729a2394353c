package io.remold.server.http;

import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.net.ssl.KeyManagerFactory;

import static io.remold.server.Eventually.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * F11: with client-ca set, the webhook listener requires a client certificate signed by that CA (the API server's
 * admission kubeconfig presents one): a forged review from anywhere else is refused at the TLS handshake.
 */
class ClientCertificateTest {
    @TempDir
    Path dir;

    /** A self-signed client certificate (its own CA) and its key. */
    record Client(X509Certificate certificate, KeyPair keys) {
        static Client create(String name) throws Exception {
            var generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            KeyPair keys = generator.generateKeyPair();
            var subject = new X500Name("CN=" + name);
            Instant now = Instant.now();
            var builder = new JcaX509v3CertificateBuilder(subject, BigInteger.ONE,
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(1))), subject,
                    keys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.extendedKeyUsage, false,
                    new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
            return new Client(new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate()))), keys);
        }

        Path writeCa(Path file) throws IOException {
            var out = new StringWriter();
            try (var writer = new JcaPEMWriter(out)) {
                writer.writeObject(certificate);
            }
            return Files.writeString(file, out.toString());
        }

        /** A client presenting this certificate and trusting the server's CA. */
        HttpClient httpClient(TestServer server) {
            try {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                store.setKeyEntry("client", keys.getPrivate(), new char[0], new Certificate[]{certificate});
                var keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keyManagers.init(store, new char[0]);
                return TestServer.client(keyManagers.getKeyManagers(), server.tls.ca());
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void reviewsWithoutAClientCertificateFromTheCaAreRefusedAtTheHandshake() throws Exception {
        Client apiServer = Client.create("kube-apiserver");
        Client stranger = Client.create("attacker");
        Path ca = apiServer.writeCa(dir.resolve("client-ca.crt"));
        try (var server = new TestServer(dir, new HttpLimits(4096, 1 << 20, Duration.ofSeconds(10)),
                ClusterRefs.NONE, BindingListener.NONE, Duration.ZERO, ca)) {
            server.store.synced();
            assertThat(answered(server, TestServer.client(server.tls.ca())), is(false));
            assertThat(answered(server, stranger.httpClient(server)), is(false));
            assertThat(answered(server, apiServer.httpClient(server)), is(true));
            // Probes need no certificate: the admin listener is plain HTTP.
            assertThat(server.getAdmin("/readyz").statusCode(), is(200));

            // The CA file is reloaded like the serving pair: a rotated client CA takes effect without a restart.
            Path next = stranger.writeCa(dir.resolve("next-ca.crt"));
            Files.move(next, ca, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            await("the rotated CA's client answered", () -> answered(server, stranger.httpClient(server)));
            assertThat(answered(server, apiServer.httpClient(server)), is(false));
        }
    }

    /** True when a review POSTed over a new connection is answered 200; false when the handshake fails. */
    private static boolean answered(TestServer server, HttpClient client) {
        try (client) {
            HttpResponse<String> http = client.send(HttpRequest.newBuilder(server.uri("/validate"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(WebhookServerTest.review("m", "CREATE", ""))).build(),
                    HttpResponse.BodyHandlers.ofString());
            return http.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

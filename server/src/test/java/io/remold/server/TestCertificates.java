package io.remold.server;

import io.remold.server.http.TlsFiles;

import java.nio.file.Path;
import java.time.Instant;
import javax.net.ssl.SSLContext;

/** Certificates for test servers outside this package: the webhook's own generated kind. */
public final class TestCertificates {
    private TestCertificates() {
    }

    /**
     * Writes a generated certificate for localhost and 127.0.0.1 into {@code dir} and returns a server context
     * serving it; {@code dir/ca.crt} is the PEM a client must trust.
     */
    public static SSLContext serverContext(Path dir) {
        return TlsFiles.generateSelfSigned(dir, Instant.now()).load().sslContext();
    }

    /** {@link #serverContext(Path)} with a certificate for {@code dnsName} only: another host than the server's. */
    public static SSLContext serverContext(Path dir, String dnsName) {
        return TlsFiles.generateSelfSigned(dir, Instant.now(), new org.bouncycastle.asn1.x509.GeneralName(
                org.bouncycastle.asn1.x509.GeneralName.dNSName, dnsName)).load().sslContext();
    }
}

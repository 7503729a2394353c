package io.remold.server.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Instant;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** F19: the generated key is private to its owner, and the certificate users trust signs nothing else. */
class TlsFilesTest {
    @TempDir
    Path dir;

    static X509Certificate read(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    @Test
    void theKeyAndANewDirectoryAreOwnerOnly() throws IOException {
        Path certs = dir.resolve("new").resolve("certs");
        TlsFiles files = TlsFiles.generateSelfSigned(certs, Instant.now());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(certs)), is("rwx------"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.key())), is("rw-------"));
        // Generated again into the same directory: the key stays private.
        Files.setPosixFilePermissions(files.key(), PosixFilePermissions.fromString("rw-r--r--"));
        TlsFiles.generateSelfSigned(certs, Instant.now());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(files.key())), is("rw-------"));
    }

    @Test
    void anExistingDirectoryKeepsItsMode() throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
        TlsFiles.generateSelfSigned(dir, Instant.now());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)), is("rwxr-x---"));
    }

    @Test
    void theServingCertificateIsALeafSignedByACaWhoseKeyIsNotKept() throws Exception {
        TlsFiles files = TlsFiles.generateSelfSigned(dir, Instant.now());
        X509Certificate leaf = read(files.cert());
        X509Certificate ca = read(files.ca());
        assertThat("CA:FALSE", leaf.getBasicConstraints(), is(-1));
        assertThat("no keyCertSign", leaf.getKeyUsage()[5], is(false));
        assertThat(leaf.getExtendedKeyUsage(), is(java.util.List.of("1.3.6.1.5.5.7.3.1")));
        leaf.verify(ca.getPublicKey());
        assertThat("a CA for leaves only (pathLen 0)", ca.getBasicConstraints(), is(0));
        assertThrows(Exception.class, () -> leaf.verify(leaf.getPublicKey()));
        try (var listing = Files.list(dir)) {
            assertThat("tls.crt, tls.key and ca.crt only: no CA key", listing.count(), is(3L));
        }
    }
}

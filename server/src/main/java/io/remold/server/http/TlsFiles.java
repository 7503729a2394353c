package io.remold.server.http;

import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The server certificate: a PEM pair on disk, loaded into a Helidon {@link Tls} (TLS 1.2 and 1.3 only), and the CA
 * file of the client certificates to require, if any (mutual TLS with the API server).
 */
public record TlsFiles(Path cert, Path key, Optional<Path> clientCa) {
    static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
    private static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");

    public TlsFiles(Path cert, Path key) {
        this(cert, key, Optional.empty());
    }

    /** These files, with client certificates signed by {@code ca} required (none when empty). */
    public TlsFiles requiringClientsOf(Optional<Path> ca) {
        return new TlsFiles(cert, key, ca);
    }

    /** The files to watch: a change to any of them is loaded into the running server. */
    List<Path> files() {
        var files = new ArrayList<>(List.of(cert, key));
        clientCa.ifPresent(files::add);
        return files;
    }

    /** Reads the files; errors name the file. */
    public Tls load() {
        List<X509Certificate> chain = readChain(cert);
        PrivateKey privateKey = readKey(key);
        var tls = Tls.builder()
                .privateKey(privateKey)
                .privateKeyCertChain(chain)
                .enabledProtocols(PROTOCOLS);
        clientCa.ifPresent(ca -> tls.trust(readChain(ca)).clientAuth(TlsClientAuth.REQUIRED));
        return tls.build();
    }

    /** When the serving certificate (the chain's first) expires. */
    Instant notAfter() {
        return readChain(cert).get(0).getNotAfter().toInstant();
    }

    private static List<X509Certificate> readChain(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            var chain = CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
                    .map(X509Certificate.class::cast).toList();
            if (chain.isEmpty()) {
                throw new IllegalArgumentException(file + ": no certificate in the file");
            }
            return chain;
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(file + ": not a PEM certificate: " + e.getMessage(), e);
        }
    }

    private static PrivateKey readKey(Path file) {
        try (Reader reader = Files.newBufferedReader(file); PEMParser parser = new PEMParser(reader)) {
            Object pem = parser.readObject();
            var converter = new JcaPEMKeyConverter();
            if (pem instanceof PEMKeyPair pair) {
                return converter.getPrivateKey(pair.getPrivateKeyInfo());
            }
            if (pem instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
            throw new IllegalArgumentException(file + ": no unencrypted PEM private key in the file");
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes a new ECDSA P-256 serving certificate for localhost and 127.0.0.1 into {@code dir} ({@code tls.crt},
     * {@code tls.key}) with the CA that signed it ({@code ca.crt}, for clients to trust). The CA's key is never
     * written, so trusting {@code ca.crt} trusts this one certificate: nobody can sign another with it. A new
     * directory is made readable by its owner only, and the key file always is.
     */
    public static TlsFiles generateSelfSigned(Path dir, Instant now) {
        return generateSelfSigned(dir, now, new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    }

    /** {@link #generateSelfSigned(Path, Instant)} for {@code names} (tests: a certificate for another host). */
    public static TlsFiles generateSelfSigned(Path dir, Instant now, GeneralName... names) {
        try {
            KeyPair caPair = newKeyPair();
            KeyPair pair = newKeyPair();
            var caName = new X500Name("CN=remold-webhook-ca");
            var ca = certificate(caName, caName, caPair.getPublic(), caPair.getPrivate(), now, builder -> {
                // pathLen 0: this CA signs leaves only.
                builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign));
            });
            var leaf = certificate(caName, new X500Name("CN=remold-webhook"), pair.getPublic(), caPair.getPrivate(),
                    now, builder -> {
                        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
                        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
                        builder.addExtension(Extension.extendedKeyUsage, false,
                                new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
                        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
                    });
            createPrivateDirectory(dir);
            var files = new TlsFiles(dir.resolve("tls.crt"), dir.resolve("tls.key"));
            Files.writeString(files.cert(), pem(leaf));
            writePrivate(files.key(), pem(new JcaPKCS8Generator(pair.getPrivate(), null)));
            Files.writeString(files.ca(), pem(ca));
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the generated certificate to " + dir, e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot generate a certificate: " + e.getMessage(), e);
        }
    }

    private interface Extensions {
        void add(JcaX509v3CertificateBuilder builder) throws IOException;
    }

    private static X509Certificate certificate(X500Name issuer, X500Name subject, PublicKey key, PrivateKey signer,
                                               Instant now, Extensions extensions)
            throws IOException, GeneralSecurityException, OperatorCreationException {
        var builder = new JcaX509v3CertificateBuilder(issuer, new BigInteger(64, new SecureRandom()),
                Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(365))), subject, key);
        extensions.add(builder);
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer)));
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        var generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static boolean posix(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    /** Creates {@code dir} (and missing parents) owner-only; an existing directory is left as it is. */
    private static void createPrivateDirectory(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        Path parent = dir.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (posix(dir)) {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
        } else {
            Files.createDirectory(dir);
        }
    }

    /** Writes {@code text} to a file readable by its owner only, from its first byte on. */
    private static void writePrivate(Path file, String text) throws IOException {
        Files.deleteIfExists(file);
        if (posix(file)) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE));
        }
        Files.writeString(file, text);
    }

    /** The CA file written next to a generated certificate. */
    public Path ca() {
        return cert.resolveSibling("ca.crt");
    }

    private static String pem(Object object) throws IOException {
        var out = new StringWriter();
        try (var writer = new JcaPEMWriter(out)) {
            writer.writeObject(object);
        }
        return out.toString();
    }
}

package io.remold.server;

import io.helidon.common.tls.Tls;
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
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

/** The server certificate: a PEM pair on disk, loaded into a Helidon {@link Tls} (TLS 1.2 and 1.3 only). */
record TlsFiles(Path cert, Path key) {
    static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    /** Reads both files; errors name the file. */
    Tls load() {
        List<X509Certificate> chain = readChain(cert);
        PrivateKey privateKey = readKey(key);
        return Tls.builder()
                .privateKey(privateKey)
                .privateKeyCertChain(chain)
                .enabledProtocols(PROTOCOLS)
                .build();
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
     * Writes a new self-signed ECDSA P-256 certificate for localhost and 127.0.0.1 into {@code dir}
     * ({@code tls.crt}, {@code tls.key}; the certificate is its own CA, so {@code ca.crt} is the same file).
     */
    static TlsFiles generateSelfSigned(Path dir, Instant now) {
        return generateSelfSigned(dir, now, new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    }

    /** {@link #generateSelfSigned(Path, Instant)} for {@code names} (tests: a certificate for another host). */
    static TlsFiles generateSelfSigned(Path dir, Instant now, GeneralName... names) {
        try {
            var generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair pair = generator.generateKeyPair();
            var subject = new X500Name("CN=remold-webhook");
            var builder = new JcaX509v3CertificateBuilder(subject, new BigInteger(64, new SecureRandom()),
                    Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(Duration.ofDays(365))),
                    subject, pair.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.keyUsage, true,
                    new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyCertSign));
            builder.addExtension(Extension.extendedKeyUsage, false,
                    new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
            Files.createDirectories(dir);
            var files = new TlsFiles(dir.resolve("tls.crt"), dir.resolve("tls.key"));
            Files.writeString(files.cert(), pem(certificate));
            Files.writeString(files.key(), pem(new JcaPKCS8Generator(pair.getPrivate(), null)));
            Files.writeString(files.ca(), pem(certificate));
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the generated certificate to " + dir, e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot generate a certificate: " + e.getMessage(), e);
        }
    }

    /** The CA file written next to a generated certificate. */
    Path ca() {
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

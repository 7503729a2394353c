package io.remold.certgen;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** ECDSA P-256 CA and serving certificates, and their PEM forms. */
final class Certificates {
    private static final String SIGNATURE = "SHA256withECDSA";
    /** Backdated so that a node whose clock is a little behind already accepts a fresh certificate. */
    private static final long BACKDATE_SECONDS = 300;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Certificates() {
    }

    /** A certificate with the private key that signed nothing but belongs to it. */
    record Issued(X509Certificate certificate, PrivateKey key) {
    }

    static Issued newCa(String commonName, Instant now, Instant notAfter) {
        KeyPair keys = newKeyPair();
        var name = new X500Name("CN=" + commonName);
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, serial(),
                    Date.from(now.minusSeconds(BACKDATE_SECONDS)), Date.from(notAfter), name, keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keys.getPublic()));
            return new Issued(sign(builder, keys.getPrivate()), keys.getPrivate());
        } catch (CertIOException | GeneralSecurityException e) {
            throw new IllegalStateException("creating the CA certificate", e);
        }
    }

    /** A serving certificate for the DNS names, signed by the CA; its subject is the first name the API server uses. */
    static Issued newServing(Issued ca, List<String> dnsNames, Instant now, Instant notAfter) {
        KeyPair keys = newKeyPair();
        var sans = dnsNames.stream().map(n -> new GeneralName(GeneralName.dNSName, n)).toArray(GeneralName[]::new);
        try {
            var extensions = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(ca.certificate(), serial(),
                    Date.from(now.minusSeconds(BACKDATE_SECONDS)), Date.from(notAfter),
                    new X500Name("CN=" + dnsNames.get(dnsNames.size() - 2)), keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            extensions.createSubjectKeyIdentifier(keys.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false,
                            extensions.createAuthorityKeyIdentifier(ca.certificate()));
            return new Issued(sign(builder, ca.key()), keys.getPrivate());
        } catch (CertIOException | GeneralSecurityException e) {
            throw new IllegalStateException("creating the serving certificate", e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            var generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM cannot generate P-256 keys", e);
        }
    }

    private static BigInteger serial() {
        return new BigInteger(127, RANDOM).add(BigInteger.ONE);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey)
            throws CertificateException {
        try {
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder(SIGNATURE).build(issuerKey)));
        } catch (OperatorCreationException e) {
            throw new IllegalStateException("no " + SIGNATURE + " signer", e);
        }
    }

    // ---- PEM ----

    static byte[] pem(List<?> objects) {
        var text = new StringWriter();
        try (var writer = new JcaPEMWriter(text)) {
            for (Object object : objects) {
                writer.writeObject(object instanceof PrivateKey key ? new JcaPKCS8Generator(key, null) : object);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** Every certificate of a PEM bundle; empty when there is none or the text is not PEM. */
    static List<X509Certificate> parseCertificates(byte[] pem) {
        if (pem == null || pem.length == 0) {
            return List.of();
        }
        try {
            var certificates = new ArrayList<X509Certificate>();
            CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))
                    .forEach(c -> certificates.add((X509Certificate) c));
            return certificates;
        } catch (CertificateException e) {
            return List.of();
        }
    }

    /** The private key of a PKCS#8 or SEC1 PEM; null when there is none. */
    static PrivateKey parseKey(byte[] pem) {
        if (pem == null) {
            return null;
        }
        try (var parser = new PEMParser(new StringReader(new String(pem, StandardCharsets.US_ASCII)))) {
            Object object = parser.readObject();
            var converter = new JcaPEMKeyConverter();
            if (object instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
            return object instanceof PEMKeyPair pair ? converter.getKeyPair(pair).getPrivate() : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether the key belongs to the certificate: it signs, the certificate's public key verifies. */
    static boolean matches(PrivateKey key, X509Certificate certificate) {
        byte[] probe = "remold-certgen".getBytes(StandardCharsets.US_ASCII);
        try {
            var signer = Signature.getInstance(SIGNATURE);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            var verifier = Signature.getInstance(SIGNATURE);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** Whether the certificate was signed by the CA. */
    static boolean signedBy(X509Certificate certificate, X509Certificate ca) {
        try {
            certificate.verify(ca.getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** The DNS subject alternative names of a certificate. */
    static List<String> dnsNames(X509Certificate certificate) {
        try {
            var names = certificate.getSubjectAlternativeNames();
            if (names == null) {
                return List.of();
            }
            return names.stream().filter(n -> (Integer) n.get(0) == GeneralName.dNSName)
                    .map(n -> (String) n.get(1)).toList();
        } catch (CertificateException e) {
            return List.of();
        }
    }
}

package io.remold.installer;

import java.util.List;
import java.util.Map;

/**
 * cert-manager's objects for the serving certificate: a self-signed issuer signs a CA, the CA issuer signs the
 * certificate in the Secret the Deployment mounts; cert-manager's CA injector fills the webhooks' caBundle.
 * cert-manager's kinds have no client-java model, so they are plain maps.
 */
final class CertManager {
    private static final String API_VERSION = "cert-manager.io/v1";

    private CertManager() {
    }

    static List<Object> objects(String namespace, String tlsSecret, List<String> dnsNames) {
        String selfSigned = "remold-selfsigned";
        String ca = "remold-ca";
        var keyAlgorithm = Map.of("algorithm", "ECDSA", "size", 256, "rotationPolicy", "Always");
        return List.of(
                object("Issuer", selfSigned, namespace, Map.of("selfSigned", Map.of())),
                object("Certificate", ca, namespace, Map.of(
                        "isCA", true, "commonName", ca, "secretName", ca, "duration", "87600h",
                        "privateKey", keyAlgorithm, "issuerRef", issuerRef(selfSigned))),
                object("Issuer", ca, namespace, Map.of("ca", Map.of("secretName", ca))),
                object("Certificate", tlsSecret, namespace, Map.of(
                        "secretName", tlsSecret, "commonName", dnsNames.get(2), "dnsNames", dnsNames,
                        "duration", "8760h", "renewBefore", "720h", "privateKey", keyAlgorithm,
                        "usages", List.of("server auth", "digital signature"),
                        "issuerRef", issuerRef(ca))));
    }

    private static Map<String, Object> issuerRef(String issuer) {
        return Map.of("group", "cert-manager.io", "kind", "Issuer", "name", issuer);
    }

    private static Map<String, Object> object(String kind, String name, String namespace, Map<String, Object> spec) {
        return Map.of("apiVersion", API_VERSION, "kind", kind,
                "metadata", Map.of("name", name, "namespace", namespace,
                        "labels", Map.of("app.kubernetes.io/name", Bundle.NAME, "app.kubernetes.io/part-of", Bundle.NAME)),
                "spec", spec);
    }
}

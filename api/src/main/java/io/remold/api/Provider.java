package io.remold.api;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An external data provider ({@code remold.io/v1beta1 Provider}, cluster-scoped): an HTTPS service answering
 * Gatekeeper's ProviderRequest, called by the template function {@code external} and by Gatekeeper's
 * {@code externalData}. {@code caCertificates} is empty when the JVM's trust store decides. {@code namespaces}
 * ({@code spec.namespaces}) are the namespaces whose rules may call it, {@code ["*"]} for all; whatever it says,
 * cluster-wide callers (rules in the system namespace or from files without one, Gatekeeper's mutators) may.
 */
public record Provider(String name, URI url, List<X509Certificate> caCertificates, Duration timeout,
                       Duration cacheTTL, int maxEntries, FailurePolicy failurePolicy, List<String> namespaces) {
    public static final String KIND = "Provider";
    public static final String PLURAL = "providers";
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);
    /** The longest timeout of one Provider (one admission request waits on providers 3 s in total as well). */
    public static final Duration MAX_TIMEOUT = Duration.ofSeconds(3);
    public static final Duration DEFAULT_CACHE_TTL = Duration.ofMinutes(1);
    public static final Duration MIN_CACHE_TTL = Duration.ofSeconds(1);
    public static final Duration MAX_CACHE_TTL = Duration.ofHours(24);
    public static final int DEFAULT_MAX_ENTRIES = 1000;
    public static final int MAX_MAX_ENTRIES = 100_000;

    /** In {@code spec.namespaces}: every namespace. */
    public static final String ALL_NAMESPACES = "*";

    private static final Set<String> SPEC_FIELDS = Set.of("url", "caBundle", "timeout", "cacheTTL", "maxEntries",
            "failurePolicy", "namespaces");
    /** A namespace name (DNS-1123 label). */
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    /** A Kubernetes object name (DNS subdomain): the API server enforces it; files are held to it too. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    /** One {@code <decimal><unit>} step of a Go duration such as {@code 1h30m} or {@code 1.5s}. */
    private static final Pattern DURATION_STEP = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");

    /** What a rule gets when the provider cannot answer: {@code Fail} fails the rule, {@code Ignore} goes on. */
    public enum FailurePolicy { Fail, Ignore }

    public Provider {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(url, "url");
        if (!"https".equalsIgnoreCase(url.getScheme())) {
            throw new IllegalArgumentException("Provider " + name + ": only https:// URLs are allowed, got " + url);
        }
        caCertificates = List.copyOf(caCertificates);
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(cacheTTL, "cacheTTL");
        Objects.requireNonNull(failurePolicy, "failurePolicy");
        namespaces = List.copyOf(namespaces);
    }

    /**
     * Why a rule in {@code namespace} may not call this Provider, or null when it may: a cluster-wide caller always
     * may, another one when {@code spec.namespaces} names its namespace or is {@code ["*"]}.
     */
    public String refusal(String namespace, boolean clusterWide) {
        if (clusterWide || namespaces.contains(ALL_NAMESPACES) || namespaces.contains(namespace)) {
            return null;
        }
        return "Provider " + name + " does not serve rules in namespace " + namespace + " (its spec.namespaces)";
    }

    /** Whether a manifest is a {@code remold.io} Provider (not a ModRule). */
    public static boolean isProvider(JsonObject manifest) {
        return ModRule.REMOLD_API_VERSION.equals(manifest.getString("apiVersion", ""))
                && KIND.equals(manifest.getString("kind", ""));
    }

    /**
     * Reads and checks a Provider manifest; every problem is a {@link ModRuleException} naming {@code source}, the
     * field (such as {@code spec.timeout}) and why.
     */
    public static Provider fromJson(JsonObject manifest, String source) {
        if (!isProvider(manifest)) {
            throw new ModRuleException(source, 0, "kind", 0, 0, "expected " + ModRule.REMOLD_API_VERSION + " "
                    + KIND);
        }
        String name = manifest.get("metadata") instanceof JsonObject metadata ? metadata.getString("name", "") : "";
        if (name.isEmpty()) {
            throw problem(source, "metadata.name", "required");
        }
        if (!NAME.matcher(name).matches()) {
            throw problem(source, "metadata.name", "expected lower case letters, digits, '-' and '.', got \""
                    + name + "\"");
        }
        if (!(manifest.get("spec") instanceof JsonObject spec)) {
            throw problem(source, "spec", manifest.containsKey("spec") ? "expected an object" : "required");
        }
        for (String key : spec.keySet()) {
            if (!SPEC_FIELDS.contains(key)) {
                throw problem(source, "spec." + key, "unknown field (expected one of "
                        + SPEC_FIELDS.stream().sorted().toList() + ")");
            }
        }
        String url = string(spec, "url", source);
        if (url == null || url.isEmpty()) {
            throw problem(source, "spec.url", "required");
        }
        String ca = string(spec, "caBundle", source);
        Duration timeout = duration(spec, "timeout", DEFAULT_TIMEOUT, Duration.ofNanos(1), MAX_TIMEOUT, source);
        Duration ttl = duration(spec, "cacheTTL", DEFAULT_CACHE_TTL, MIN_CACHE_TTL, MAX_CACHE_TTL, source);
        int maxEntries = DEFAULT_MAX_ENTRIES;
        JsonValue entries = spec.get("maxEntries");
        if (entries != null && entries != JsonValue.NULL) {
            if (!(entries instanceof JsonNumber n) || !n.isIntegral()
                    || n.bigDecimalValue().compareTo(BigDecimal.ONE) < 0
                    || n.bigDecimalValue().compareTo(BigDecimal.valueOf(MAX_MAX_ENTRIES)) > 0) {
                throw problem(source, "spec.maxEntries", "expected an integer from 1 to " + MAX_MAX_ENTRIES
                        + ", got " + entries);
            }
            maxEntries = n.intValue();
        }
        String policy = string(spec, "failurePolicy", source);
        FailurePolicy failurePolicy = FailurePolicy.Fail;
        if (policy != null) {
            try {
                failurePolicy = FailurePolicy.valueOf(policy);
            } catch (IllegalArgumentException e) {
                throw problem(source, "spec.failurePolicy", "expected Fail or Ignore, got \"" + policy + "\"");
            }
        }
        return new Provider(name, httpsUrl(url, source), ca == null ? List.of() : certificates(ca, source), timeout,
                ttl, maxEntries, failurePolicy, namespaces(spec.get("namespaces"), source));
    }

    /** {@code spec.namespaces}: namespace names, or {@code "*"} alone; absent or empty: cluster-wide callers only. */
    private static List<String> namespaces(JsonValue value, String source) {
        if (value == null || value == JsonValue.NULL) {
            return List.of();
        }
        if (!(value instanceof JsonArray list)) {
            throw problem(source, "spec.namespaces", "expected a list of namespace names or [\"*\"], got " + value);
        }
        var names = new ArrayList<String>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String field = "spec.namespaces[" + i + "]";
            if (!(list.get(i) instanceof JsonString s)) {
                throw problem(source, field, "expected a namespace name, got " + list.get(i));
            }
            String name = s.getString();
            if (name.equals(ALL_NAMESPACES)) {
                if (list.size() > 1) {
                    throw problem(source, field, "\"*\" (every namespace) must be alone in the list");
                }
            } else if (!NAMESPACE.matcher(name).matches()) {
                throw problem(source, field, "expected a namespace name (at most 63 lower case letters, digits and"
                        + " '-', starting and ending with a letter or digit) or \"*\", got \"" + name + "\"");
            }
            if (names.contains(name)) {
                throw problem(source, field, "\"" + name + "\" is listed twice");
            }
            names.add(name);
        }
        return List.copyOf(names);
    }

    /**
     * A Go duration ({@code 500ms}, {@code 2s}, {@code 1m30s}, {@code 1.5h}; units ns, us, µs, ms, s, m, h), as
     * Kubernetes manifests write them; null if {@code text} is not one.
     */
    public static Duration parseDuration(String text) {
        if (text.isEmpty() || text.equals("0")) {
            return text.isEmpty() ? null : Duration.ZERO;
        }
        Matcher step = DURATION_STEP.matcher(text);
        BigDecimal nanos = BigDecimal.ZERO;
        int at = 0;
        while (at < text.length()) {
            if (!step.find(at) || step.start() != at) {
                return null;
            }
            long unit = switch (step.group(2)) {
                case "ns" -> 1L;
                case "us", "µs" -> 1_000L;
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                default -> 3_600_000_000_000L;
            };
            nanos = nanos.add(new BigDecimal(step.group(1)).multiply(BigDecimal.valueOf(unit)));
            at = step.end();
        }
        return nanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0 ? null : Duration.ofNanos(nanos.longValue());
    }

    private static Duration duration(JsonObject spec, String field, Duration fallback, Duration min, Duration max,
                                     String source) {
        String text = string(spec, field, source);
        if (text == null) {
            return fallback;
        }
        Duration d = parseDuration(text);
        if (d == null) {
            throw problem(source, "spec." + field, "expected a duration such as 500ms, 2s or 1m, got \"" + text + "\"");
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw problem(source, "spec." + field, (min.equals(Duration.ofNanos(1)) ? "expected more than 0"
                    : "expected at least " + format(min)) + " and at most " + format(max) + ", got " + text);
        }
        return d;
    }

    private static URI httpsUrl(String url, String source) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw problem(source, "spec.url", "not a URL: " + e.getMessage());
        }
        if (!"https".equals(uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT))) {
            throw problem(source, "spec.url", "only https:// URLs are allowed, got \"" + url + "\"");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw problem(source, "spec.url", "no host in \"" + url + "\"");
        }
        if (uri.getRawUserInfo() != null) {
            throw problem(source, "spec.url", "must not carry credentials");
        }
        return uri;
    }

    private static List<X509Certificate> certificates(String base64, String source) {
        byte[] pem;
        try {
            pem = Base64.getDecoder().decode(base64.replaceAll("\\s", ""));
        } catch (IllegalArgumentException e) {
            throw problem(source, "spec.caBundle", "not base64: " + e.getMessage());
        }
        if (!new String(pem, StandardCharsets.US_ASCII).contains("-----BEGIN CERTIFICATE-----")) {
            throw problem(source, "spec.caBundle", "expected base64 of PEM certificates, found no"
                    + " \"-----BEGIN CERTIFICATE-----\"");
        }
        try {
            List<X509Certificate> certificates = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem)).stream()
                    .map(X509Certificate.class::cast).toList();
            if (certificates.isEmpty()) {
                throw problem(source, "spec.caBundle", "no certificate in the bundle");
            }
            return certificates;
        } catch (CertificateException e) {
            throw problem(source, "spec.caBundle", "not a PEM certificate: " + e.getMessage());
        }
    }

    private static String string(JsonObject spec, String field, String source) {
        return JsonFields.string(spec, field, null,
                v -> problem(source, "spec." + field, "expected a string, got " + v));
    }

    /** {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}: a duration the way a Provider's spec writes it. */
    public static String format(Duration d) {
        long millis = d.toMillis();
        if (millis % 1000 != 0) {
            return millis + "ms";
        }
        long s = d.toSeconds();
        return s % 3600 == 0 ? s / 3600 + "h" : s % 60 == 0 ? s / 60 + "m" : s + "s";
    }

    private static ModRuleException problem(String source, String field, String why) {
        return new ModRuleException(source, 0, field, 0, 0, why);
    }
}

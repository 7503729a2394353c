package io.remold.server;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import io.remold.api.AllowedUrls;
import io.remold.kinitiras.KinitirasOptions;
import io.remold.rules.TenantScripts;
import io.remold.server.existing.ExistingApplyOptions;
import io.remold.server.existing.ScanSettings;
import io.remold.server.log.LogFormat;
import io.remold.server.log.LogLevel;
import io.remold.server.reports.ReportLimits;
import io.remold.server.reports.ReportOptions;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The server's settings. Precedence: flag {@code --key}, then environment variable {@code REMOLD_KEY}, then
 * {@code application.yaml} from the classpath (which holds every default).
 */
record ServerConfig(String host, int port, Optional<Path> tlsCert, Optional<Path> tlsKey,
                    Optional<Path> generatedCertDir, String systemNamespace, Optional<Path> rules,
                    long maxBodyBytes, LogFormat logFormat, LogLevel logLevel, Optional<Path> kubeconfig, boolean inCluster,
                    boolean kubemodCompat, Duration pollInterval, Duration shutdownGrace, Duration drain,
                    List<String> allowReferences, String kubemodSystemNamespace, TenantScripts tenantScripts,
                    Duration requestBudget, boolean nodeAnnotations, int adminPort, Optional<Path> clientCa,
                    long maxBodyBytesInFlight, Duration readTimeout, Set<String> ruleCrds, AllowedUrls allowHttpRef,
                    KinitirasOptions kinitiras, ReportOptions reports,
                    ExistingApplyOptions existingApply, int shadowQueue, double shadowCpuShare,
                    ScanSettings impact, Optional<URI> otlpEndpoint, boolean provenanceAnnotation) {

    /** One configuration key, for the help text and the environment variable mapping. */
    record Key(String name, String help) {
        String env() {
            return "REMOLD_" + name.toUpperCase(Locale.ROOT).replace('-', '_');
        }
    }

    static final List<Key> KEYS = List.of(
            new Key("host", "address to listen on"),
            new Key("port", "HTTPS port"),
            new Key("tls-cert", "PEM certificate chain file (reloaded when it changes)"),
            new Key("tls-key", "PEM private key file (reloaded when it changes)"),
            new Key("generated-cert-dir", "where the self-signed certificate goes when no certificate is set"),
            new Key("system-namespace", "namespace whose ModRules apply cluster-wide"),
            new Key("rules", "folder of ModRule files (folder mode)"),
            new Key("max-body-bytes", "largest accepted request body (the API server sends at most about 3 MiB)"),
            new Key("log-format", "json or text"),
            new Key("log-level", "least severe of Remold's own log records written: error, warn, info or debug"
                    + " (other libraries' stay at info)"),
            new Key("kubeconfig", "kubeconfig file (cluster mode)"),
            new Key("in-cluster", "use the pod's service account (cluster mode)"),
            new Key("kubemod-compat", "also honour KubeMod's namespace label and node-ref annotation (cluster mode)"),
            new Key("poll-interval-ms", "how often rule and certificate files are checked for changes"),
            new Key("shutdown-grace-seconds", "how long shutdown waits for in-flight requests"),
            new Key("drain-seconds", "on shutdown, how long to keep serving, not ready and closing each connection after "
                    + "its response, before stopping (lets a Service's endpoints and its clients move away)"),
            new Key("allow-references", "resources ModRules' spec.references may read, [group/]plural, comma-separated,"
                    + " or none (the default; cluster mode; the installer grants the same)"),
            new Key("allow-http-ref", "URL prefixes (http or https, host, optional port and path) kinitiras http"
                    + " valueRefs and CUE processing.http may call, comma-separated, or none (the default: a policy"
                    + " with an http valueRef is not in force)"),
            new Key(KinitirasOptions.CROSS_NAMESPACE_OPTION, "kinitiras OverridePolicies apply to the objects they"
                    + " select in every namespace, as in kinitiras (unsafe with tenants: one namespace's policy changes"
                    + " another's objects); default false: their own namespace's only"),
            new Key(KinitirasOptions.WEBHOOK_LABEL_OPTION, "kinitiras policies see only objects (or old objects)"
                    + " labelled kinitiras.kcloudlabs.io/webhook: enabled, as kinitiras's webhook configuration sends"
                    + " them (unsafe with tenants: an object's author exempts it); default false: every object"),
            new Key("rule-crds", "API groups of rule CRDs installed with the server, comma-separated, or none: a replica"
                    + " is not ready until it watches their rule resources (cluster mode; kubemod-compat implies"
                    + " api.kubemod.io)"),
            new Key("kubemod-system-namespace", "namespace whose api.kubemod.io ModRules apply cluster-wide, as"
                    + " KubeMod's own; only with kubemod-compat (without it they are namespaced like any other)"),
            new Key(TenantScripts.OPTION, "namespaces whose own rules may run JavaScript (type: Script ModRules,"
                    + " JsAdmission), comma-separated, * for all, or none (the default); the system namespace's and"
                    + " cluster-wide ones always may"),
            new Key("request-budget-ms", "how long one /mutate or /validate may take: external data and scripts"
                    + " share it, rules not yet run when it is spent fail (under the webhook's timeoutSeconds)"),
            new Key("node-annotations", "annotate bound pods that ask for it with their node (cluster mode; the server"
                    + " then patches pods: the installer's --node-annotations grants it)"),
            new Key("admin-port", "plain-HTTP port on host for /healthz, /readyz and /metrics, outside the webhook "
                    + "port's request bound (0: none; /metrics is served only there)"),
            new Key("client-ca", "PEM CA file; when set, the HTTPS port requires a client certificate it signed "
                    + "(reloaded when it changes)"),
            new Key("max-body-bytes-in-flight", "total bytes of request bodies read or held at once; beyond it a "
                    + "request is answered 503 before its body is read"),
            new Key("read-timeout-ms", "a request's headers and body must arrive within it, else the connection is "
                    + "closed"),
            new Key("reports", "the leader writes OpenReports reports of what Shadow and Warn rules and impact scans "
                    + "found (cluster mode; the installer's --reports installs their CRDs and grants the writes)"),
            new Key("report-results", "objects each report lists, 0 to 1000 (its counts cover them all)"),
            new Key("report-interval-seconds", "how often a report that changed is written, at most"),
            new Key(ExistingApplyOptions.FIELD_MANAGER_OPTION, "field manager of the leader's server-side applies to"
                    + " existing objects (rules with existing: Apply; cluster mode)"),
            new Key(ExistingApplyOptions.RATE_OPTION, "at most this many existing objects written per second by rules"
                    + " with existing: Apply (cluster mode)"),
            new Key("shadow-queue", "admission requests waiting for their Shadow (and Warn) rules' evaluation, off the "
                    + "admission path; beyond it a request's is dropped and counted"
                    + " (remold_shadow_dropped_total{reason=\"queue\"})"),
            new Key("shadow-cpu-share", "fraction of one core the Shadow rules' evaluation may take, averaged over about"
                    + " a second, above 0 and at most 1; beyond it a request's is skipped and counted"
                    + " (remold_shadow_dropped_total{reason=\"cpu\"})"),
            new Key("impact-rate", "objects per second the leader's impact scans of existing objects decide, at most"
                    + " (cluster mode; one scan at a time, on a low-priority thread)"),
            new Key("impact-rescan-interval-seconds", "how often a rule with existing: Apply in Enforce is scanned"
                    + " again (a field changed back is noticed), and a scan that failed or was forbidden is tried"
                    + " again"),
            new Key("impact-samples", "verdicts (and as many conflicts) a rule's status.impact keeps as examples"),
            new Key("otlp-endpoint", "OpenTelemetry collector's OTLP/HTTP base URL (http or https, e.g."
                    + " http://otel-collector:4318): admission requests are traced there; empty (the default): no"
                    + " traces"),
            new Key("provenance-annotation", "a patched object carries the annotation remold.io/changed-by naming"
                    + " the rule that changed each of its fields (at most 16, in 1 KiB; replaced at each admission"
                    + " that changes the object); default false: objects get no annotation of Remold's"));

    /** Reads the configuration from flags (already split into key/value) and the given environment. */
    static ServerConfig load(Map<String, String> flags, Map<String, String> environment) {
        var env = new LinkedHashMap<String, String>();
        var cli = new LinkedHashMap<String, String>();
        for (Key key : KEYS) {
            String fromEnv = environment.get(key.env());
            if (fromEnv != null) {
                env.put("remold." + key.name(), fromEnv);
            }
        }
        flags.forEach((name, value) -> {
            if (KEYS.stream().noneMatch(k -> k.name().equals(name))) {
                throw new IllegalArgumentException("unknown option --" + name);
            }
            cli.put("remold." + name, value);
        });
        Config config = Config.builder()
                .disableEnvironmentVariablesSource()
                .disableSystemPropertiesSource()
                .sources(ConfigSources.create(cli, "flags"),
                        ConfigSources.create(env, "environment"),
                        ConfigSources.classpath("application.yaml"))
                .build()
                .get("remold");
        return new ServerConfig(
                string(config, "host"),
                integer(config, "port"),
                path(config, "tls-cert"),
                path(config, "tls-key"),
                path(config, "generated-cert-dir"),
                string(config, "system-namespace"),
                path(config, "rules"),
                number(config, "max-body-bytes"),
                enumValue(config, "log-format", LogFormat.class),
                enumValue(config, "log-level", LogLevel.class),
                path(config, "kubeconfig"),
                bool(config, "in-cluster"),
                bool(config, "kubemod-compat"),
                Duration.ofMillis(number(config, "poll-interval-ms")),
                Duration.ofSeconds(number(config, "shutdown-grace-seconds")),
                Duration.ofSeconds(number(config, "drain-seconds")),
                list(config, "allow-references"),
                string(config, "kubemod-system-namespace"),
                TenantScripts.parse(string(config, TenantScripts.OPTION)),
                Duration.ofMillis(number(config, "request-budget-ms")),
                bool(config, "node-annotations"),
                integer(config, "admin-port"),
                path(config, "client-ca"),
                number(config, "max-body-bytes-in-flight"),
                Duration.ofMillis(number(config, "read-timeout-ms")),
                Set.copyOf(list(config, "rule-crds")),
                AllowedUrls.parse(list(config, "allow-http-ref")),
                new KinitirasOptions(bool(config, KinitirasOptions.CROSS_NAMESPACE_OPTION),
                        bool(config, KinitirasOptions.WEBHOOK_LABEL_OPTION)),
                new ReportOptions(bool(config, "reports"),
                        ReportLimits.DEFAULT.withResultsPerReport((int) Math.min(number(config, "report-results"),
                                Integer.MAX_VALUE)),
                        Duration.ofSeconds(number(config, "report-interval-seconds"))),
                new ExistingApplyOptions(string(config, ExistingApplyOptions.FIELD_MANAGER_OPTION).strip(),
                        positive(config, ExistingApplyOptions.RATE_OPTION)),
                integer(config, "shadow-queue"),
                fraction(config, "shadow-cpu-share"),
                new ScanSettings(number(config, "impact-rate"),
                        Duration.ofSeconds(number(config, "impact-rescan-interval-seconds")),
                        (int) Math.min(Integer.MAX_VALUE, number(config, "impact-samples")), ScanSettings.PATCH_BYTES,
                        ScanSettings.PAGE_SIZE),
                httpUrl(config, "otlp-endpoint"),
                bool(config, "provenance-annotation"));
    }

    /** A comma-separated value; {@code none} or empty for no items. */
    private static List<String> list(Config config, String key) {
        return java.util.Arrays.stream(string(config, key).split(",")).map(String::strip)
                .filter(r -> !r.isEmpty() && !"none".equals(r)).toList();
    }

    /**
     * The namespace whose api.kubemod.io rules are cluster-wide, or null: only with kubemod-compat, since whoever
     * may create a namespace of that name would otherwise get rules over every namespace.
     */
    String kubemodSystem() {
        return kubemodCompat && !kubemodSystemNamespace.isBlank() ? kubemodSystemNamespace : null;
    }

    ServerConfig {
        if (tlsCert.isPresent() != tlsKey.isPresent()) {
            throw new IllegalArgumentException("tls-cert and tls-key must be given together");
        }
        if (kubeconfig.isPresent() && inCluster) {
            throw new IllegalArgumentException("kubeconfig and in-cluster exclude each other");
        }
        if (maxBodyBytes <= 0 || maxBodyBytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("max-body-bytes must be between 1 and 2 GiB: " + maxBodyBytes);
        }
        if (requestBudget.toMillis() < 1) {
            throw new IllegalArgumentException("request-budget-ms must be at least 1: " + requestBudget.toMillis());
        }
        if (maxBodyBytesInFlight < maxBodyBytes || maxBodyBytesInFlight > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("max-body-bytes-in-flight must be between max-body-bytes ("
                    + maxBodyBytes + ") and 2 GiB: " + maxBodyBytesInFlight);
        }
        if (shadowQueue < 1) {
            throw new IllegalArgumentException("shadow-queue must be at least 1: " + shadowQueue);
        }
        if (!readTimeout.isPositive()) {
            throw new IllegalArgumentException("read-timeout-ms must be positive: " + readTimeout.toMillis());
        }
        if (adminPort != 0 && adminPort == port) {
            throw new IllegalArgumentException("admin-port and port must differ: " + port);
        }
    }

    private static String string(Config config, String key) {
        return config.get(key).asString().orElseThrow(() -> missing(key));
    }

    private static Optional<Path> path(Config config, String key) {
        return config.get(key).asString().filter(s -> !s.isBlank()).map(Path::of);
    }

    private static int integer(Config config, String key) {
        long value = number(config, key);
        if (value < 0 || value > 65535) {
            throw new IllegalArgumentException(key + " must be a port number: " + value);
        }
        return (int) value;
    }

    private static int positive(Config config, String key) {
        long value = number(config, key);
        if (value < 1 || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + " must be a whole number from 1: " + value);
        }
        return (int) value;
    }

    private static long number(Config config, String key) {
        String text = string(config, key).trim();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number: \"" + text + "\"");
        }
    }

    /** A fraction above 0 and at most 1 ({@code 0.25}). */
    private static double fraction(Config config, String key) {
        String text = string(config, key).trim();
        try {
            double value = Double.parseDouble(text);
            if (value > 0 && value <= 1) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(key + " must be a number above 0 and at most 1: \"" + text + "\"");
    }

    private static boolean bool(Config config, String key) {
        String text = string(config, key).trim().toLowerCase(Locale.ROOT);
        return switch (text) {
            case "true" -> true;
            case "false", "" -> false;
            default -> throw new IllegalArgumentException(key + " must be true or false: \"" + text + "\"");
        };
    }

    /** One of {@code type}'s constants, by name ({@code json or text}, {@code error, warn, info or debug}). */
    private static <E extends Enum<E>> E enumValue(Config config, String key, Class<E> type) {
        String text = string(config, key).trim();
        var names = java.util.Arrays.stream(type.getEnumConstants()).map(Enum::name).toList();
        if (!names.contains(text)) {
            throw new IllegalArgumentException(key + " must be " + String.join(", ", names.subList(0, names.size() - 1))
                    + " or " + names.getLast() + ": \"" + text + "\"");
        }
        return Enum.valueOf(type, text);
    }

    /** An http or https URL with a host, or empty when blank. */
    private static Optional<URI> httpUrl(Config config, String key) {
        String text = string(config, key).trim();
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            URI uri = new URI(text);
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
                    && uri.getRawQuery() == null && uri.getRawFragment() == null && uri.getRawUserInfo() == null) {
                return Optional.of(uri);
            }
        } catch (URISyntaxException e) {
            // reported below
        }
        throw new IllegalArgumentException(key + " must be an http or https URL with a host and no user, query or"
                + " fragment: \"" + text + "\"");
    }

    private static IllegalArgumentException missing(String key) {
        return new IllegalArgumentException("missing configuration key remold." + key);
    }
}

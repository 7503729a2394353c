package io.remold.server;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The server's settings. Precedence: flag {@code --key}, then environment variable {@code REMOLD_KEY}, then
 * {@code application.yaml} from the classpath (which holds every default).
 */
record ServerConfig(String host, int port, Optional<Path> tlsCert, Optional<Path> tlsKey,
                    Optional<Path> generatedCertDir, String systemNamespace, Optional<Path> rules,
                    long maxBodyBytes, LogFormat logFormat, Optional<Path> kubeconfig, boolean inCluster,
                    boolean kubemodCompat, Duration pollInterval, Duration shutdownGrace, Duration drain,
                    List<String> allowReferences) {

    enum LogFormat { json, text }

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
            new Key("max-body-bytes", "largest accepted request body"),
            new Key("log-format", "json or text"),
            new Key("kubeconfig", "kubeconfig file (cluster mode)"),
            new Key("in-cluster", "use the pod's service account (cluster mode)"),
            new Key("kubemod-compat", "also honour KubeMod's namespace label and node-ref annotation (cluster mode)"),
            new Key("poll-interval-ms", "how often rule and certificate files are checked for changes"),
            new Key("shutdown-grace-seconds", "how long shutdown waits for in-flight requests"),
            new Key("drain-seconds", "on shutdown, how long to keep serving, not ready and closing each connection after "
                    + "its response, before stopping (lets a Service's endpoints and its clients move away)"),
            new Key("allow-references", "resources ModRules' spec.references may read, [group/]plural, comma-separated,"
                    + " or none (the default; cluster mode; the installer grants the same)"));

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
                enumValue(config, "log-format"),
                path(config, "kubeconfig"),
                bool(config, "in-cluster"),
                bool(config, "kubemod-compat"),
                Duration.ofMillis(number(config, "poll-interval-ms")),
                Duration.ofSeconds(number(config, "shutdown-grace-seconds")),
                Duration.ofSeconds(number(config, "drain-seconds")),
                java.util.Arrays.stream(string(config, "allow-references").split(",")).map(String::strip)
                        .filter(r -> !r.isEmpty() && !"none".equals(r)).toList());
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

    private static long number(Config config, String key) {
        String text = string(config, key).trim();
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number: \"" + text + "\"");
        }
    }

    private static boolean bool(Config config, String key) {
        String text = string(config, key).trim().toLowerCase(Locale.ROOT);
        return switch (text) {
            case "true" -> true;
            case "false", "" -> false;
            default -> throw new IllegalArgumentException(key + " must be true or false: \"" + text + "\"");
        };
    }

    private static LogFormat enumValue(Config config, String key) {
        String text = string(config, key).trim();
        try {
            return LogFormat.valueOf(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " must be json or text: \"" + text + "\"");
        }
    }

    private static IllegalArgumentException missing(String key) {
        return new IllegalArgumentException("missing configuration key remold." + key);
    }
}

package io.remold.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Remold server as a plain {@code java -jar remold-server.jar serve} process outside the cluster, in cluster
 * mode against the e2e kube-apiserver, serving HTTPS with the certificate the control plane issued for 127.0.0.1.
 * It keeps its port across restarts, because the webhook configurations name it.
 */
final class RemoldServer implements AutoCloseable {
    private static final Pattern RULES = Pattern.compile("(?m)^remold_rules (\\d+)");
    private static final Pattern MUTATORS = Pattern.compile("(?m)^remold_gatekeeper_mutators (\\d+)");
    /** Gatekeeper's mutator resources, which the bundle serves with --gatekeeper-compat. */
    static final String GATEKEEPER_MUTATORS = "assign.mutations.gatekeeper.sh,assignmetadata.mutations.gatekeeper.sh,"
            + "modifyset.mutations.gatekeeper.sh,assignimage.mutations.gatekeeper.sh";

    /** What the shared installation's server is started with, besides where it listens and its credentials. */
    static final List<String> DEFAULT_OPTIONS = List.of("--kubemod-compat", "--allow-references",
            Remold.ALLOW_REFERENCES, "--node-annotations", "--tenant-scripts", "default", "--reports",
            "--report-interval-seconds", "1");

    private final int port;
    /** The plain-HTTP port of /healthz, /readyz and /metrics, which answers without a client certificate. */
    private final int adminPort;
    private final Path log;
    private final Path kubeconfig;
    private List<String> jvmOptions = List.of();
    private List<String> options = DEFAULT_OPTIONS;
    private Process process;

    /** A server whose API calls authenticate with the given kubeconfig. */
    RemoldServer(int port, Path kubeconfig) {
        this.kubeconfig = kubeconfig;
        this.port = port;
        this.adminPort = freePort();
        this.log = Cluster.WORK.resolve("remold-server.log");
        try {
            Files.deleteIfExists(log); // one log per run, kept across the server's restarts within it
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String url() {
        return "https://127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    /** What the server runs with besides where it listens and its credentials. */
    List<String> options() {
        return options;
    }

    List<String> jvmOptions() {
        return jvmOptions;
    }

    String adminUrl() {
        return "http://127.0.0.1:" + adminPort;
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** The running server's process id (its /proc entry: resident memory). */
    long pid() {
        if (process == null) {
            throw new IllegalStateException("the Remold server is not running");
        }
        return process.pid();
    }

    /** Stops the server and starts it again with these JVM and server options instead of the current ones. */
    void restart(List<String> newJvmOptions, List<String> newOptions) {
        stop();
        jvmOptions = List.copyOf(newJvmOptions);
        options = List.copyOf(newOptions);
        start();
    }

    void start() {
        try {
            Files.createDirectories(log.getParent());
            // GraalJS (script rules) loads native code and uses sun.misc.Unsafe: as the launcher and the image allow.
            var argv = new ArrayList<>(List.of(Cluster.java().toString(), "--enable-native-access=ALL-UNNAMED",
                    "--sun-misc-unsafe-memory-access=allow"));
            argv.addAll(jvmOptions);
            argv.addAll(List.of("-jar", Cluster.jar("server").toString(), "serve",
                    "--kubeconfig", kubeconfig.toString(), "--host", "127.0.0.1", "--port", String.valueOf(port),
                    "--admin-port", String.valueOf(adminPort), "--tls-cert", Cluster.WEBHOOK_CERT.toString(),
                    "--tls-key", Cluster.WEBHOOK_KEY.toString(), "--log-format", "text"));
            argv.addAll(options);
            process = new ProcessBuilder(argv)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            // Also when the test JVM ends without closing the installation (a killed run).
            Process started = process;
            Runtime.getRuntime().addShutdownHook(new Thread(started::destroy, "remold-server-stop"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the Remold server", e);
        }
        try {
            Wait.until("the Remold server to be ready at " + url(), Duration.ofSeconds(60), () -> {
                if (!process.isAlive()) {
                    throw new AssertionError("the Remold server exited with " + process.exitValue());
                }
                return admin("/readyz").ok();
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + logTail(60), e);
        }
    }

    /** SIGTERM, then SIGKILL after the grace period. */
    void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    @Override
    public void close() {
        stop();
    }

    /** The {@code remold_rules} gauge: how many ModRules the server's engine holds now. */
    int ruleCount() {
        return gauge(RULES);
    }

    private int gauge(Pattern gauge) {
        var metrics = admin("/metrics").orFail().stdout();
        Matcher m = gauge.matcher(metrics);
        if (!m.find()) {
            throw new AssertionError("no " + gauge + " in /metrics:\n" + metrics);
        }
        return Integer.parseInt(m.group(1));
    }

    /**
     * Waits until the server's engine holds as many rules as the cluster stores: ModRules of both API groups, and
     * Gatekeeper's mutators.
     */
    void awaitRulesInSync() {
        Wait.until("the Remold server to hold every ModRule and mutator of the cluster", Duration.ofSeconds(20), () -> {
            int stored = 0;
            for (String resource : List.of("modrules.remold.io", "modrules.api.kubemod.io")) {
                stored += stored(resource);
            }
            return ruleCount() == stored && gauge(MUTATORS) == stored(GATEKEEPER_MUTATORS);
        });
    }

    private static int stored(String resources) {
        var get = Cluster.kubectl("get", resources, "-A", "--no-headers", "--ignore-not-found").run();
        return get.ok() ? (int) get.stdout().lines().filter(l -> !l.isBlank()).count() : 0;
    }

    String logTail(int lines) {
        try {
            if (!Files.exists(log)) {
                return "(no server log)";
            }
            List<String> all = Files.readAllLines(log);
            return "--- last " + lines + " lines of " + log + "\n"
                    + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    /** GET on the admin port, which needs no client certificate even when the webhook port does. */
    Command.Result admin(String path) {
        return Command.of("curl", "-sf", "--max-time", "5", adminUrl() + path).run();
    }

    static int freePort() {
        try (var socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

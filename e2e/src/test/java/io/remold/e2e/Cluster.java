package io.remold.e2e;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.Config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;

/**
 * The control plane started by {@code e2e/control-plane.sh} (pre-integration-test), found through its state dir,
 * and the repository whose jars and examples the scenarios use.
 */
final class Cluster {
    static final Path STATE = Path.of(property("remold.e2e.state"));
    static final Path REPO = Path.of(property("remold.repo.dir")).toAbsolutePath().normalize();
    static final Path WORK = Path.of(property("remold.e2e.work"));
    static final Path KUBECONFIG = STATE.resolve("kubeconfig");
    static final Path CA = STATE.resolve("pki/ca.crt");
    static final Path WEBHOOK_CERT = STATE.resolve("pki/webhook.crt");
    static final Path WEBHOOK_KEY = STATE.resolve("pki/webhook.key");
    /** The CA of the client certificate kube-apiserver presents to every webhook (its AdmissionConfiguration). */
    static final Path CLIENT_CA = STATE.resolve("pki/webhook-client-ca.crt");
    static final Path WEBHOOK_CLIENT_CERT = STATE.resolve("pki/webhook-client.crt");
    static final Path WEBHOOK_CLIENT_KEY = STATE.resolve("pki/webhook-client.key");

    private Cluster() {
    }

    private static String property(String name) {
        return Command.requiredProperty(name, "e2e");
    }

    static Command kubectl(String... args) {
        return Command.kubectl(KUBECONFIG, args);
    }

    /** {@code kubectl apply -f -} with the given manifests; fails with kubectl's output if it refuses them. */
    static Command.Result apply(String yaml) {
        return kubectl("apply", "-f", "-").withInput(yaml).run().orFail();
    }

    /** The object as the API server stores it, for failure messages. */
    static String stored(String kind, String namespace, String name) {
        var get = namespace == null ? kubectl("get", kind, name, "-o", "yaml")
                : kubectl("get", kind, name, "-n", namespace, "-o", "yaml");
        var result = get.run();
        return "--- " + kind + " " + (namespace == null ? "" : namespace + "/") + name + " as stored:\n"
                + (result.ok() ? result.stdout() : result.stderr());
    }

    /**
     * A kubeconfig that authenticates as a ServiceAccount with a token from the TokenRequest API (what a pod gets),
     * so that a process using it has exactly the RBAC the installer granted that account.
     */
    static Path serviceAccountKubeconfig(String namespace, String account) {
        String token = kubectl("create", "token", account, "-n", namespace, "--duration=24h").run().orFail().stdout()
                .strip();
        String server = kubectl("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}").run()
                .orFail().stdout();
        String ca = Base64.getEncoder().encodeToString(read(CA).getBytes(StandardCharsets.US_ASCII));
        Path file = WORK.resolve("kubeconfig-" + namespace + "-" + account);
        try {
            Files.createDirectories(WORK);
            Files.writeString(file, """
                    apiVersion: v1
                    kind: Config
                    clusters:
                    - name: e2e
                      cluster: {server: '%s', certificate-authority-data: %s}
                    users:
                    - name: %s
                      user: {token: %s}
                    contexts:
                    - name: e2e
                      context: {cluster: e2e, user: %s}
                    current-context: e2e
                    """.formatted(server, ca, account, token, account));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    static ApiClient api() {
        try {
            return Config.fromConfig(KUBECONFIG.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + KUBECONFIG, e);
        }
    }

    /** Stops and starts kube-apiserver (etcd keeps the data); returns once it is ready again. */
    static void restartApiserver() {
        new Command(List.of("bash", property("remold.e2e.script"), "restart-apiserver"), null).run().orFail();
    }

    /** A jar built by the reactor: {@code <module>/target/remold-<module>.jar}. */
    static Path jar(String module) {
        Path jar = REPO.resolve(module).resolve("target").resolve("remold-" + module + ".jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build it with ./mvnw -Pe2e verify (or package)");
        }
        return jar;
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }
}

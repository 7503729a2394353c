package io.remold.e2e;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.Config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The kind cluster made by {@code e2e/kind/cluster.sh up} (pre-integration-test of {@code -Pkind}), and the user's
 * tools against it: kubectl, docker, kind and the installer jar.
 */
final class Kind {
    static final Path REPO = Path.of(property("remold.repo.dir")).toAbsolutePath().normalize();
    static final Path STATE = Path.of(property("remold.kind.state"));
    static final Path WORK = Path.of(property("remold.e2e.work"));
    static final Path KUBECONFIG = STATE.resolve("kubeconfig");
    /** The image cluster.sh built from the repository's Dockerfile and loaded (remold.local/remold:TAG). */
    static final String IMAGE = "remold.local/remold";
    static final String TAG = property("remold.kind.tag");

    private Kind() {
    }

    private static String property(String name) {
        return Command.requiredProperty(name, "kind");
    }

    static Command kubectl(String... args) {
        return Command.kubectl(KUBECONFIG, args);
    }

    static Command.Result apply(String yaml) {
        return kubectl("apply", "-f", "-").withInput(yaml).run().orFail();
    }

    /** The installer jar with the given flags, as {@code java -jar remold-installer.jar ... > bundle.yaml}. */
    static Path bundle(String name, String... flags) {
        var argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                REPO.resolve("installer/target/remold-installer.jar").toString()));
        argv.addAll(List.of(flags));
        String yaml = new Command(argv, null).run().orFail().stdout();
        Path file = WORK.resolve(name + ".yaml");
        try {
            Files.createDirectories(WORK);
            Files.writeString(file, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /**
     * The installer flags the kind scenarios use: the locally built image, which no registry can serve, and node
     * references (scenario 10; off by default).
     */
    static String[] imageFlags(String tag) {
        return new String[] {"--image", IMAGE, "--tag", tag, "--image-pull-policy", "Never", "--node-annotations"};
    }

    /** {@code docker tag} and {@code kind load docker-image}: another tag of the built image, in the cluster. */
    static void loadTag(String tag) {
        Command.of("docker", "tag", IMAGE + ":" + TAG, IMAGE + ":" + tag).run().orFail();
        Command.of(read(STATE.resolve("kind-bin")).strip(), "load", "docker-image", IMAGE + ":" + tag,
                "--name", "remold-kind").run().orFail();
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ApiClient api() {
        try {
            ApiClient client = Config.fromConfig(KUBECONFIG.toString());
            client.setReadTimeout((int) Duration.ofSeconds(30).toMillis());
            return client;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + KUBECONFIG, e);
        }
    }
}

package io.remold.e2e;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Remold installed once per run in the e2e cluster: the installer's bundle for a server outside the cluster
 * ({@code --webhook-url}, {@code --ca-file}) applied with kubectl, and the server process it points at. Scenarios
 * get the {@link Installation} as a parameter; a failed scenario prints the server's log tail.
 */
final class Remold implements BeforeAllCallback, ParameterResolver, TestWatcher {

    /** The one installation of a run; closed (server stopped) when the run ends. */
    record Installation(RemoldServer server, String bundle) implements AutoCloseable {
        @Override
        public void close() {
            server.close();
        }
    }

    static final String SYSTEM_NAMESPACE = "remold-system";
    /** What ModRules' spec.references may read in this installation (the default is nothing). */
    static final String ALLOW_REFERENCES = "configmaps";

    @Override
    public void beforeAll(ExtensionContext context) {
        installation(context);
    }

    /** Set when the installation failed: the other scenario classes fail at once instead of trying again. */
    private static volatile RuntimeException installFailure;

    private static Installation installation(ExtensionContext context) {
        if (installFailure != null) {
            throw new IllegalStateException("the installation failed in an earlier scenario class", installFailure);
        }
        try {
            return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                    .getOrComputeIfAbsent(Installation.class, k -> install(), Installation.class);
        } catch (RuntimeException | AssertionError e) {
            installFailure = e instanceof RuntimeException r ? r : new IllegalStateException(e.getMessage(), e);
            throw e;
        }
    }

    /** The bundle first (it names the server's URL, so the port is chosen before), then the server. */
    private static Installation install() {
        int port = RemoldServer.freePort();
        String url = "https://127.0.0.1:" + port;
        String bundle = installer("--webhook-url", url, "--ca-file", Cluster.CA.toString(), "--kubemod-compat",
                "--gatekeeper-compat", "--js-admissions-compat", "--kinitiras-compat", "--allow-references", ALLOW_REFERENCES,
                "--node-annotations", // scenario 5 (node references) needs pods: patch
                "--reports"); // ReportsIT: the OpenReports CRDs and the server's RBAC to write them
        Cluster.apply(bundle);
        // Scenario 9: the server runs as its ServiceAccount, with only the RBAC of the bundle.
        var server = new RemoldServer(port, Cluster.serviceAccountKubeconfig(SYSTEM_NAMESPACE, "remold-server"));
        try {
            server.start();
        } catch (RuntimeException | AssertionError e) {
            server.stop();
            throw e;
        }
        return new Installation(server, bundle);
    }

    /** Runs the installer jar and returns the bundle it prints. */
    static String installer(String... args) {
        var argv = new ArrayList<>(List.of(Cluster.java().toString(), "-jar", Cluster.jar("installer").toString()));
        argv.addAll(List.of(args));
        return new Command(argv, null).run().orFail().stdout();
    }

    /**
     * The JVM options of the default bundle's Deployment (its JAVA_TOOL_OPTIONS), less the AOT cache that only the
     * image has: the 128 MiB heap and exit on OutOfMemoryError of a server in its container. (The e2e installation
     * is for a server outside the cluster and has no Deployment.)
     */
    static List<String> deploymentJvmOptions() {
        var options = Pattern.compile("name: JAVA_TOOL_OPTIONS\\s+value: (.+)").matcher(installer());
        if (!options.find()) {
            throw new AssertionError("no JAVA_TOOL_OPTIONS in the default bundle");
        }
        return Arrays.stream(options.group(1).strip().split(" ")).filter(o -> !o.startsWith("-XX:AOTCache=")).toList();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Installation.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return installation(context);
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        var installation = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .get(Installation.class, Installation.class);
        if (installation != null) {
            System.err.println("FAILED " + context.getDisplayName() + "\n" + installation.server().logTail(60));
        }
    }

    static Path example(String name) {
        return Cluster.REPO.resolve("examples/kubemod-readme").resolve(name);
    }
}

package io.remold.cli;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.Arrays;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The cli runs the engine and the rule families offline: its resolved dependencies (the test class path, which holds
 * every runtime dependency) pull neither Helidon nor the Kubernetes client, which are the server's.
 */
class DependenciesTest {
    /** Surefire's copy of the test class path; {@code java.class.path} when run elsewhere. */
    private static final List<String> CLASS_PATH = Arrays.asList(System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path")).split(File.pathSeparator));

    @Test
    void neitherHelidonNorTheKubernetesClientIsOnTheClassPath() {
        assertThat("the class path is the resolved one", CLASS_PATH, hasItem(containsString("jakarta.json-api")));
        assertThat(CLASS_PATH.stream().filter(entry -> entry.contains("/io/helidon/")
                || entry.contains("/io/kubernetes/") || entry.contains("helidon-")
                || entry.contains("client-java")).toList(), empty());
        assertThrows(ClassNotFoundException.class, () -> Class.forName("io.helidon.webserver.WebServer"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("io.kubernetes.client.openapi.ApiClient"));
    }
}

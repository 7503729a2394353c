package io.remold.server.kube;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

import static io.remold.server.kube.FakeApiServer.ok;
import static io.remold.server.kube.FakeApiServer.status;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

class NodeRefInjectorTest {
    private static final String POD_PATH = "/api/v1/namespaces/team-a/pods/web";

    private final FakeApiServer api = new FakeApiServer();
    private final List<Duration> delays = new ArrayList<>();

    NodeRefInjectorTest() throws IOException {
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private NodeRefInjector injector(boolean kubemodCompat) {
        // Runs each task at once on the calling thread and records the delay it asked for: the test sees the whole
        // exchange when bound() returns.
        return new NodeRefInjector(api.client(), (delay, task) -> {
            delays.add(delay);
            task.run();
        }, kubemodCompat);
    }

    private static FakeApiServer.Response pod(String resourceVersion, String annotations, String nodeName) {
        return ok(("{'apiVersion':'v1','kind':'Pod','metadata':{'name':'web','namespace':'team-a',"
                + "'resourceVersion':'" + resourceVersion + "','annotations':" + annotations + "},'spec':{"
                + (nodeName == null ? "" : "'nodeName':'" + nodeName + "',")
                + "'containers':[{'name':'c','image':'nginx'}]}}").replace('\'', '"'));
    }

    @Test
    void conflictIsRetriedOnAFreshRead() {
        String asks = "{'ref.remold.io/inject-node-ref':'true'}";
        api.on("GET", POD_PATH, pod("5", asks, "node-1"), pod("6", asks, "node-1"))
                .on("PATCH", POD_PATH, status(409, "Conflict"), pod("7", asks, "node-1"));

        injector(false).bound("team-a", "web", "node-1");

        List<FakeApiServer.Request> patches = api.requests("PATCH", POD_PATH);
        assertThat(patches, hasSize(2));
        assertThat(patches.stream().map(FakeApiServer.Request::contentType).distinct().toList(),
                contains("application/merge-patch+json"));
        assertThat(patches.get(0).body(),
                is("{\"metadata\":{\"annotations\":{\"ref.remold.io/nodename\":\"node-1\"},"
                        + "\"resourceVersion\":\"5\"}}"));
        assertThat(patches.get(1).body(),
                is("{\"metadata\":{\"annotations\":{\"ref.remold.io/nodename\":\"node-1\"},"
                        + "\"resourceVersion\":\"6\"}}"));
        assertThat(delays, contains(Duration.ZERO, Duration.ofMillis(100)));
    }

    @Test
    void podThatDoesNotAskIsLeftAlone() {
        api.on("GET", POD_PATH, pod("5", "{'ref.remold.io/inject-node-ref':'false'}", "node-1"));
        injector(false).bound("team-a", "web", "node-1");
        assertThat(api.requests("GET", POD_PATH), hasSize(1));
        assertThat(api.requests("PATCH", POD_PATH), empty());
    }

    @Test
    void podAlreadyAnnotatedIsNotPatchedAgain() {
        api.on("GET", POD_PATH, pod("5",
                "{'ref.remold.io/inject-node-ref':'true','ref.remold.io/nodename':'node-1'}", "node-1"));
        injector(false).bound("team-a", "web", "node-1");
        assertThat(api.requests("PATCH", POD_PATH), empty());
    }

    @Test
    void podBoundToAnotherNodeIsNotAnnotated() {
        api.on("GET", POD_PATH, pod("5", "{'ref.remold.io/inject-node-ref':'true'}", "node-2"));
        injector(false).bound("team-a", "web", "node-1");
        assertThat(api.requests("PATCH", POD_PATH), empty());
    }

    @Test
    void waitsUntilTheBindingIsStored() {
        String asks = "{'ref.remold.io/inject-node-ref':'true'}";
        api.on("GET", POD_PATH, pod("5", asks, null), pod("6", asks, "node-1"))
                .on("PATCH", POD_PATH, pod("7", asks, "node-1"));
        injector(false).bound("team-a", "web", "node-1");
        assertThat(api.requests("GET", POD_PATH), hasSize(2));
        assertThat(api.requests("PATCH", POD_PATH), hasSize(1));
    }

    @Test
    void givesUpAfterTheLastAttempt() {
        api.on("GET", POD_PATH, pod("5", "{'ref.remold.io/inject-node-ref':'true'}", "node-1"))
                .on("PATCH", POD_PATH, status(409, "Conflict"));
        injector(false).bound("team-a", "web", "node-1");
        assertThat(api.requests("PATCH", POD_PATH), hasSize(NodeRefInjector.MAX_ATTEMPTS));
        assertThat(delays, contains(Duration.ZERO, Duration.ofMillis(100), Duration.ofMillis(200),
                Duration.ofMillis(400), Duration.ofMillis(800), Duration.ofMillis(1600), Duration.ofMillis(2000),
                Duration.ofMillis(2000)));
    }

    @Test
    void podGoneEndsTheWork() {
        injector(false).bound("team-a", "web", "node-1");
        assertThat(api.requests(), hasSize(1));
    }

    @Test
    void kubemodAnnotationIsHonouredOnlyInCompatMode() {
        String asks = "{'ref.kubemod.io/inject-node-ref':'true'}";
        api.on("GET", POD_PATH, pod("5", asks, "node-1")).on("PATCH", POD_PATH, pod("6", asks, "node-1"));

        injector(false).bound("team-a", "web", "node-1");
        assertThat(api.requests("PATCH", POD_PATH), empty());

        injector(true).bound("team-a", "web", "node-1");
        assertThat(api.requests("PATCH", POD_PATH).getFirst().body(),
                is("{\"metadata\":{\"annotations\":{\"ref.kubemod.io/node\":\"node-1\",\"ref.kubemod.io/nodename\":"
                        + "\"node-1\"},\"resourceVersion\":\"5\"}}"));
    }

    @Test
    void closedSchedulerNeverFailsTheRequest() {
        var injector = new NodeRefInjector(api.client(), (delay, task) -> {
            throw new RejectedExecutionException("closed");
        }, false);
        injector.bound("team-a", "web", "node-1");
        assertThat(api.requests(), empty());
    }
}

package io.remold.server.kube;

import org.junit.jupiter.api.Test;

import java.io.IOException;

import static io.remold.server.kube.FakeApiServer.ok;
import static io.remold.server.kube.FakeApiServer.status;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

class ApiStatusWriterTest {
    private static final String STATUS_PATH = "/apis/remold.io/v1beta1/namespaces/team-a/modrules/r/status";

    @Test
    void writesTheReadyConditionThroughTheStatusSubresource() throws IOException {
        try (var api = new FakeApiServer()) {
            api.on("PATCH", STATUS_PATH, ok("{}"));
            var writer = new ApiStatusWriter(api.client(), Runnable::run, "remold-server-0");

            writer.write(new RuleRef("remold.io", "v1beta1", "modrules", "team-a", "r"),
                    new ReadyCondition(false, "CompileError", "spec.match[0].select: unexpected end", 4),
                    "2026-01-02T03:04:05Z");

            var patch = api.requests("PATCH", STATUS_PATH).getFirst();
            assertThat(patch.contentType(), is("application/merge-patch+json"));
            assertThat(patch.body(), is("{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\","
                    + "\"reason\":\"CompileError\",\"message\":\"spec.match[0].select: unexpected end\","
                    + "\"lastTransitionTime\":\"2026-01-02T03:04:05Z\",\"observedGeneration\":4}]}}"));
        }
    }

    @Test
    void refusedWriteIsLoggedNotThrown() throws IOException {
        try (var api = new FakeApiServer()) {
            api.on("PATCH", STATUS_PATH, status(403, "Forbidden"));
            var writer = new ApiStatusWriter(api.client(), Runnable::run, "remold-server-0");
            writer.write(new RuleRef("remold.io", "v1beta1", "modrules", "team-a", "r"),
                    new ReadyCondition(true, "Compiled", "rule compiled", 1), "2026-01-02T03:04:05Z");
            assertThat(api.requests("PATCH", STATUS_PATH), hasSize(1));
        }
    }
}

package io.remold.server.kube;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.remold.server.Eventually.await;
import static io.remold.server.kube.FakeApiServer.ok;
import static io.remold.server.kube.FakeApiServer.status;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

class ApiStatusWriterTest {
    private static final String STATUS_PATH = "/apis/remold.io/v1beta1/namespaces/team-a/modrules/r/status";
    private static final String KUBEMOD_RULES = "/apis/api.kubemod.io/v1beta1/namespaces/team-a/modrules/";
    private static final ReadyCondition READY = new ReadyCondition(true, "Compiled", "rule compiled", 1);
    private static final String SINCE = "2026-01-02T03:04:05Z";

    private final NoWaitBackoff backoff = new NoWaitBackoff();
    private final WriteQueue queue = new WriteQueue(backoff, () -> true);
    private final FakeApiServer api = new FakeApiServer();
    private final ApiStatusWriter writer = new ApiStatusWriter(api.client(), queue, "remold-server-0");
    private final Logger log = Logger.getLogger(ApiStatusWriter.class.getName());
    private final ConcurrentLinkedQueue<String> logged = new ConcurrentLinkedQueue<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record.getLevel() + " " + record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    ApiStatusWriterTest() throws IOException {
        log.addHandler(capture);
    }

    @AfterEach
    void stop() {
        log.removeHandler(capture);
        queue.close();
        api.close();
    }

    private static RuleRef rule(String group, String name) {
        return new RuleRef(group, "v1beta1", "modrules", "team-a", name);
    }

    @Test
    void writesTheReadyConditionThroughTheStatusSubresource() {
        api.on("PATCH", STATUS_PATH, ok("{}"));

        writer.write(rule("remold.io", "r"),
                new ReadyCondition(false, "CompileError", "spec.match[0].select: unexpected end", 4), SINCE);

        await(() -> !api.requests("PATCH", STATUS_PATH).isEmpty());
        var patch = api.requests("PATCH", STATUS_PATH).getFirst();
        assertThat(patch.contentType(), is("application/merge-patch+json"));
        assertThat(patch.body(), is("{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\","
                + "\"reason\":\"CompileError\",\"message\":\"spec.match[0].select: unexpected end\","
                + "\"lastTransitionTime\":\"2026-01-02T03:04:05Z\",\"observedGeneration\":4}]}}"));
    }

    @Test
    void aRefusedWriteIsLoggedOnceAndTriedAgainAfterTheBackoff() {
        api.on("PATCH", STATUS_PATH, status(403, "Forbidden"), status(403, "Forbidden"), ok("{}"));

        writer.write(rule("remold.io", "r"), READY, SINCE);

        await(() -> logged.stream().anyMatch(line -> line.startsWith("INFO status of")));
        assertThat(api.requests("PATCH", STATUS_PATH), hasSize(3));
        assertThat(backoff.retries.get(), is(2));
        assertThat("the repeat at debug level", logged.stream().filter(l -> l.startsWith("WARNING")).toList(),
                hasSize(1));
    }

    @Test
    void aResourceWithoutStatusSubresourceIsSaidOnceAndWrittenNoMore() {
        // KubeMod's CRD: the rule exists, its status subresource answers 404 (the fake's answer to unknown routes).
        api.on("GET", KUBEMOD_RULES + "a", ok("{}")).on("PATCH", STATUS_PATH, ok("{}"));

        writer.write(rule("api.kubemod.io", "a"), READY, SINCE);
        await(() -> !logged.isEmpty());
        writer.write(rule("api.kubemod.io", "b"), READY, SINCE);
        writer.write(rule("api.kubemod.io", "a"), READY, SINCE);
        writer.write(rule("remold.io", "r"), READY, SINCE);
        // One worker, in order: once remold.io's is written, any KubeMod write asked before it would have been.
        await(() -> logged.stream().anyMatch(line -> line.startsWith("INFO status of")));

        assertThat(api.requests("PATCH", KUBEMOD_RULES + "a/status"), hasSize(1));
        assertThat(api.requests("PATCH", KUBEMOD_RULES + "b/status"), empty());
        assertThat("not retried", backoff.retries.get(), is(0));
        assertThat(logged, contains(startsWith("INFO {0} have no status subresource"),
                startsWith("INFO status of")));
    }

    @Test
    void aRuleDeletedBeforeItsWriteIsNoReasonToStop() {
        writer.write(rule("api.kubemod.io", "gone"), READY, SINCE);
        await(() -> !api.requests("GET", KUBEMOD_RULES + "gone").isEmpty());
        api.on("PATCH", KUBEMOD_RULES + "a/status", ok("{}"));
        writer.write(rule("api.kubemod.io", "a"), READY, SINCE);

        await(() -> !logged.isEmpty());
        assertThat(api.requests("PATCH", KUBEMOD_RULES + "a/status"), hasSize(1));
        assertThat(backoff.retries.get(), is(0));
        assertThat(List.copyOf(logged), contains(startsWith("INFO status of")));
    }
}

package io.remold.server.existing;

import io.remold.engine.RuleFamily;
import io.remold.server.existing.ExistingWrites.Outcome;
import io.remold.server.kube.FakeApiServer;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.remold.server.kube.FakeApiServer.ok;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

/** The writer against a loopback API server: the requests it makes and what each answer comes to. */
class ServerSideApplyTest {
    private static final Path CASES = Path.of("src/test/resources/existing/apply");
    private static final String DEPLOYMENT = "/apis/apps/v1/namespaces/shop/deployments/web";
    private static final String APPS_RESOURCES = """
            {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[
             {"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment",
              "verbs":["get","list","patch"]},
             {"name":"deployments/scale","singularName":"","namespaced":true,"kind":"Scale","verbs":["get"]}]}""";
    private static final FakeApiServer.Response CONFLICT = new FakeApiServer.Response(409, """
            {"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","code":409,
             "message":"Apply failed with 1 conflict: conflict with \\"kubectl-edit\\" using apps/v1: .metadata.labels.team",
             "details":{"name":"web","group":"apps","kind":"deployments","causes":[{"reason":"FieldManagerConflict",
              "message":"conflict with \\"kubectl-edit\\" using apps/v1","field":".metadata.labels.team"}]}}""");
    private static final FakeApiServer.Response INVALID = new FakeApiServer.Response(422, """
            {"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422,
             "message":"Deployment.apps \\"web\\" is invalid: metadata.labels: Invalid value: \\"shop!\\""}""");

    private final FakeApiServer api = new FakeApiServer();
    private final AtomicBoolean leading = new AtomicBoolean(true);
    /** A clock that stands still: one write per slot, and a write beyond the first waits for time that never comes. */
    private final WriteBudget budget = new WriteBudget(10, Duration.ZERO, () -> 0L, nanos -> {
        throw new AssertionError("no wait expected");
    });
    private final ServerSideApply writer = new ServerSideApply(api.client(),
            new ExistingApplyOptions("remold-existing", 10), budget, leading::get);
    private final JsonObject testCase = ApplyConfigurationTest.read(CASES.resolve("label-added.json"));
    private final JsonObject deployment = testCase.getJsonObject("object");
    private final JsonArray addTeamLabel = testCase.getJsonArray("patch");

    ServerSideApplyTest() throws IOException {
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private Outcome apply(JsonObject object) {
        return writer.apply(RuleFamily.MODRULE, "shop/team-label", object, addTeamLabel);
    }

    private void served(FakeApiServer.Response... patches) {
        api.on("GET", "/apis/apps/v1", ok(APPS_RESOURCES))
                .on("GET", DEPLOYMENT, ok(deployment.toString()))
                .on("PATCH", DEPLOYMENT, patches);
    }

    @Test
    void appliesTheConfigurationAfterADryRunUnderItsFieldManagerWithoutForce() throws IOException {
        served(ok(deployment.toString()));

        assertThat(apply(deployment), is(new Outcome.Applied()));

        var patches = api.requests("PATCH", DEPLOYMENT);
        assertThat(patches.stream().map(FakeApiServer.Request::query).toList(), contains(
                "dryRun=All&fieldManager=remold-existing&force=false",
                "fieldManager=remold-existing&force=false"));
        for (var patch : patches) {
            assertThat(patch.contentType(), is("application/apply-patch+yaml"));
            assertThat("the golden configuration", ApplyConfigurationTest.pretty(
                    Json.createReader(new java.io.StringReader(patch.body())).readObject()),
                    equalTo(Files.readString(CASES.resolve("label-added.golden"))));
        }
    }

    @Test
    void aConflictNamesTheOtherManagerAndItsFieldAndIsNeverForced() {
        served(CONFLICT);

        assertThat(apply(deployment), is(new Outcome.Conflict("kubectl-edit", ".metadata.labels.team",
                "the dry run: HTTP 409 Apply failed with 1 conflict: conflict with \"kubectl-edit\" using apps/v1:"
                        + " .metadata.labels.team")));
        assertThat("only the dry run", api.requests("PATCH", DEPLOYMENT).size(), is(1));
    }

    @Test
    void aDryRunTheApiServerRefusesIsRefusedWithItsMessage() {
        served(INVALID);

        assertThat(apply(deployment), is(new Outcome.Refused("the dry run: HTTP 422 Deployment.apps \"web\" is"
                + " invalid: metadata.labels: Invalid value: \"shop!\"")));
        assertThat("only the dry run", api.requests("PATCH", DEPLOYMENT).size(), is(1));
    }

    @Test
    void aConflictArisingBetweenTheDryRunAndTheApplyIsAConflict() {
        served(ok(deployment.toString()), CONFLICT);

        assertThat(apply(deployment), is(new Outcome.Conflict("kubectl-edit", ".metadata.labels.team",
                "HTTP 409 Apply failed with 1 conflict: conflict with \"kubectl-edit\" using apps/v1:"
                        + " .metadata.labels.team")));
    }

    @Test
    void podsAreNeverWritten() {
        var pod = Json.createObjectBuilder(deployment).add("apiVersion", "v1").add("kind", "Pod").build();

        assertThat(apply(pod), is(new Outcome.Skipped(
                "a running Pod is not changed: change the workload's pod template")));
        assertThat(api.requests(), empty());
    }

    @Test
    void aReplicaThatDoesNotLeadWritesNothing() {
        leading.set(false);

        assertThat(apply(deployment), is(new Outcome.Skipped(
                "this replica does not lead: only the leader writes existing objects")));
        assertThat(api.requests(), empty());
    }

    @Test
    void aWriteBeyondTheBudgetIsSkippedWithoutARequest() {
        served(ok(deployment.toString()));
        apply(deployment);
        int made = api.requests().size();

        assertThat(apply(deployment), is(new Outcome.Skipped(
                "the write budget (existing-apply-rate 10/s) is spent for the next 5 s")));
        assertThat(api.requests().size(), is(made));
    }

    @Test
    void anObjectChangedSinceTheRuleDecidedIsLeftToTheNextScan() {
        served(ok(deployment.toString()));
        var stale = Json.createObjectBuilder(deployment).add("metadata", Json.createObjectBuilder(
                deployment.getJsonObject("metadata")).add("resourceVersion", "6")).build();

        assertThat(apply(stale), is(new Outcome.Skipped("the object changed since the rule decided it"
                + " (resourceVersion 6, now 7): the next scan decides again")));
        assertThat(api.requests("PATCH", DEPLOYMENT), empty());
    }

    @Test
    void aKindTheApiServerDoesNotServeIsSkipped() {
        api.on("GET", "/apis/apps/v1", ok(APPS_RESOURCES));
        var widget = Json.createObjectBuilder(deployment).add("kind", "Widget").build();

        assertThat(apply(widget), is(new Outcome.Skipped("apps/v1 Widget is not served by the API server")));
    }

    @Test
    void anUnreachableApiServerIsSkippedNotThrown() {
        api.close();

        var outcome = apply(deployment);

        assertThat(outcome, is(instanceOf(Outcome.Skipped.class)));
        assertThat(((Outcome.Skipped) outcome).why(),
                startsWith("cannot find out which resource apps/v1 Deployment is: "));
    }

    @Test
    void tellsWithoutWritingThatAnotherManagerTookAFieldBack() throws IOException {
        // The object as another manager left it: the label Remold set changed back, and owned by that manager now.
        var takenBack = ApplyConfigurationTest.read(CASES.resolve("container-image-by-name.json"));
        api.on("GET", "/apis/apps/v1", ok(APPS_RESOURCES))
                .on("GET", DEPLOYMENT, ok(takenBack.getJsonObject("object").toString()));

        assertThat(writer.ownedByAnother(deployment, takenBack.getJsonArray("patch")), is(Optional.of(
                new Outcome.Conflict("kubectl-create", ".spec.template.spec.containers[name=\"proxy\"].image",
                        ".spec.template.spec.containers[name=\"proxy\"].image is owned by kubectl-create:"
                                + " remold-existing does not force"))));
        assertThat("nobody else owns the label", writer.ownedByAnother(deployment, addTeamLabel),
                is(Optional.empty()));
        assertThat(api.requests("PATCH", DEPLOYMENT), empty());
    }

    @Test
    void readsAConflictManagerFromTheCauseMessage() {
        assertThat(ServerSideApply.managerOf("conflict with \"kube-controller-manager\" using apps/v1"),
                is("kube-controller-manager"));
        assertThat(ServerSideApply.managerOf("something else"), is(""));
    }
}

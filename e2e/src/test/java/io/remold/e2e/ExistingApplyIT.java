package io.remold.e2e;

import io.remold.engine.RuleFamily;
import io.remold.server.existing.ExistingApplyOptions;
import io.remold.server.existing.ExistingWrites.Outcome;
import io.remold.server.existing.ServerSideApply;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.StringReader;
import java.util.Optional;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;

/**
 * {@code existing: Apply} against the real API server's server-side apply: the writer (the class the leader uses)
 * changes a Deployment made by another manager under its own field manager, and when a third manager takes the field
 * back, the next apply is a conflict naming that manager, never forced. The writer runs in the test's JVM: which
 * rules and objects it is asked to write is the scanner's part; what the API server does with its applies is this.
 */
@ExtendWith(Remold.class)
class ExistingApplyIT {
    private static final String NAMESPACE = "e2e-existing";
    private static final String DEPLOYMENT = """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              namespace: e2e-existing
            spec:
              replicas: 1
              selector:
                matchLabels: {app: web}
              template:
                metadata:
                  labels: {app: web}
                spec:
                  containers:
                    - name: app
                      image: registry.example/web:1.0
                    - name: proxy
                      image: registry.example/proxy:1.0
            """;
    /** What the rule does: the proxy container gets an environment variable. */
    private static final String ADD_TIER = """
            [{"op":"add","path":"/spec/template/spec/containers/1/env","value":[{"name":"TIER","value":"web"}]}]""";
    /** The same rule on the object a controller changed: the variable is there with another value. */
    private static final String SET_TIER = """
            [{"op":"replace","path":"/spec/template/spec/containers/1/env/0/value","value":"web"}]""";

    private static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    private static JsonArray patch(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readArray();
        }
    }

    private static JsonObject stored() {
        return json(Cluster.kubectl("get", "deployment", "web", "-n", NAMESPACE, "-o", "json", "--show-managed-fields")
                .run().orFail().stdout());
    }

    private static String managers(JsonObject deployment) {
        return deployment.getJsonObject("metadata").getJsonArray("managedFields").stream()
                .map(e -> e.asJsonObject().getString("manager") + ":" + e.asJsonObject().getString("operation"))
                .toList().toString();
    }

    private static String tier(JsonObject deployment) {
        return deployment.getJsonObject("spec").getJsonObject("template").getJsonObject("spec")
                .getJsonArray("containers").getJsonObject(1).getJsonArray("env").getJsonObject(0).getString("value");
    }

    @Test
    void appliesUnderItsOwnManagerThenReportsTheManagerThatTookTheFieldBack() {
        Steps.ensureNamespace(NAMESPACE);
        Cluster.kubectl("delete", "deployment", "web", "-n", NAMESPACE, "--ignore-not-found").run().orFail();
        Cluster.kubectl("create", "--field-manager=e2e-kubectl", "-f", "-").withInput(DEPLOYMENT).run().orFail();
        var writer = new ServerSideApply(Cluster.api(), new ExistingApplyOptions("remold-existing", 10), () -> true);

        var first = writer.apply(RuleFamily.MODRULE, NAMESPACE + "/tier", stored(), patch(ADD_TIER));

        var applied = stored();
        assertThat(Cluster.stored("deployment", NAMESPACE, "web"), first, is(new Outcome.Applied()));
        assertThat(tier(applied), equalTo("web"));
        assertThat("the creator's fields stay", applied.getJsonObject("spec").getJsonObject("template")
                .getJsonObject("spec").getJsonArray("containers").getJsonObject(0).getString("image"),
                equalTo("registry.example/web:1.0"));
        assertThat(managers(applied), containsString("remold-existing:Apply"));

        // A controller sets the variable back its own way: an Update, which takes the field from remold-existing.
        Cluster.kubectl("patch", "deployment", "web", "-n", NAMESPACE, "--field-manager=e2e-controller",
                "--type=json", "-p", "[{\"op\":\"replace\",\"path\":\"/spec/template/spec/containers/1/env/0/value\","
                        + "\"value\":\"batch\"}]").run().orFail();
        var changedBack = stored();

        assertThat("told without writing", writer.ownedByAnother(changedBack, patch(SET_TIER))
                .map(Outcome.Conflict::manager), is(Optional.of("e2e-controller")));
        var second = writer.apply(RuleFamily.MODRULE, NAMESPACE + "/tier", changedBack, patch(SET_TIER));

        assertThat(Cluster.stored("deployment", NAMESPACE, "web"), second, instanceOf(Outcome.Conflict.class));
        var conflict = (Outcome.Conflict) second;
        assertThat(conflict.toString(), conflict.manager(), equalTo("e2e-controller"));
        assertThat(conflict.field(), containsString("TIER"));
        assertThat("never forced", tier(stored()), equalTo("batch"));
        Cluster.kubectl("delete", "deployment", "web", "-n", NAMESPACE).run().orFail();
    }
}

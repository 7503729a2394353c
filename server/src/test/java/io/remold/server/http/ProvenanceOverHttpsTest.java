package io.remold.server.http;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.remold.server.http.DecisionsOverHttpsTest.json;
import static io.remold.server.http.DecisionsOverHttpsTest.patch;
import static io.remold.server.http.DecisionsOverHttpsTest.review;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * The option provenance-annotation over real HTTPS: a patched object carries remold.io/changed-by (replacing what
 * the object brought), and the decision log names the rule of each changed field whether the option is on or not.
 */
class ProvenanceOverHttpsTest {
    /** Two tiers write the team label: the later one's value stands, and the annotation names it alone. */
    private static final String RULES = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: team-default, namespace: team-a}
            spec:
              type: Patch
              match: [{select: '$.kind', matchValue: Pod}]
              patch: [{op: add, path: /metadata/labels/team, value: platform}]
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: web-team, namespace: team-a}
            spec:
              type: Patch
              executionTier: 1
              match: [{select: '$.metadata.labels.app', matchValue: web}]
              patch:
              - {op: add, path: /metadata/labels/team, value: web}
              - {op: add, path: /spec/priority, value: '3'}
            """;
    private static final String CHANGED_BY = "{\"team-a/web-team\":[\"/metadata/labels/team\",\"/spec/priority\"]}";

    @TempDir
    Path dir;

    /** A pod with the given annotations (JSON members, possibly none). */
    private static String pod(String annotations) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"},
                 "annotations":{%s}},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}
                """.formatted(annotations);
    }

    /** The patch of /mutate for {@code pod} in team-a, by a server with the option set so; its log into lines. */
    private JsonArray mutate(boolean provenanceAnnotation, String pod, List<String> lines) {
        try (var server = new TestServer(dir, provenanceAnnotation); var log = new DecisionLog(lines)) {
            server.rules(RULES);
            return patch(WebhookServerTest.response(server.post("/mutate", "application/json",
                    review("a1", "team-a", pod, false))));
        }
    }

    @Test
    void aPatchedObjectCarriesTheRuleOfEachFieldAndTheLogLineToo() {
        var lines = new CopyOnWriteArrayList<String>();
        JsonArray patch = mutate(true, pod(""), lines);
        assertThat(patch, is(json("""
                {"p":[{"op":"add","path":"/metadata/labels/team","value":"web"},
                      {"op":"add","path":"/metadata/annotations/remold.io~1changed-by","value":%s},
                      {"op":"add","path":"/spec/priority","value":3}]}
                """.formatted(AdmissionReview.JSON.createValue(CHANGED_BY))).getJsonArray("p")));
        assertThat(lines.size(), is(1));
        JsonObject line = json(lines.getFirst());
        assertThat(line.getString("message"), is("patched"));
        assertThat(line.getString("changedBy"), is(CHANGED_BY));
    }

    @Test
    void reAdmissionReplacesTheAnnotationAndAHugeForgedOneCostsNothing() {
        String forged = "\"remold.io/changed-by\":\"" + "{\\\"x\\\":[".repeat(50_000) + "\"";
        JsonArray patch = mutate(true, pod(forged), new CopyOnWriteArrayList<>());
        assertThat(patch.get(1), is(json("""
                {"op":"replace","path":"/metadata/annotations/remold.io~1changed-by","value":%s}
                """.formatted(AdmissionReview.JSON.createValue(CHANGED_BY)))));
    }

    @Test
    void evalWithTheOptionGivesTheServersPatch() throws IOException {
        String pod = pod("\"remold.io/changed-by\":\"stale\"");
        Path rules = Files.writeString(dir.resolve("rules.yaml"), RULES);
        Path resource = Files.writeString(dir.resolve("pod.json"), pod);
        var out = new ByteArrayOutputStream();
        int exit = io.remold.cli.Main.run(new String[]{"eval", "--rules", rules.toString(), "--resource",
                resource.toString(), "--namespace", "team-a", "--provenance-annotation", "--output", "patch"},
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertThat(exit, is(0));
        JsonArray evaluated = json("{\"p\":" + out.toString(StandardCharsets.UTF_8) + "}").getJsonArray("p");
        assertThat(mutate(true, pod, new CopyOnWriteArrayList<>()), is(evaluated));
        assertThat(evaluated.size(), is(3));
    }

    @Test
    void withoutTheOptionTheObjectGetsNoAnnotationButTheLogNamesTheRules() {
        var lines = new CopyOnWriteArrayList<String>();
        JsonArray patch = mutate(false, pod(""), lines);
        assertThat(patch.stream().map(op -> op.asJsonObject().getString("path")).toList(),
                is(List.of("/metadata/labels/team", "/spec/priority")));
        assertThat(json(lines.getFirst()).getString("changedBy"), is(CHANGED_BY));
    }
}

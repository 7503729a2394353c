package io.remold.server.http;

import io.remold.rules.impact.Verdict;
import io.remold.server.Eventually;
import io.remold.server.admission.BindingListener;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static io.remold.server.http.DecisionsOverHttpsTest.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * {@code eval} and the server give the same answers for the same rules in every mode and the same object: the
 * Shadow rules' verdicts (eval's JSON section, the server's impact sink) and the Warn rules' warnings.
 */
class ModesParityTest {
    private static final String RULES = ModesOverHttpsTest.ENFORCED + ModesOverHttpsTest.SHADOW
            + ModesOverHttpsTest.WARN;

    @TempDir
    Path dir;

    @Test
    void evalAndTheServerAgreeOnShadowVerdictsAndWarnings() throws IOException {
        String pod = ModesOverHttpsTest.pod("nginx:latest", "\"app\":\"web\"");
        Path rules = Files.writeString(dir.resolve("rules.yaml"), RULES);
        Path resource = Files.writeString(dir.resolve("pod.json"), pod);
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int exit = io.remold.cli.Main.run(new String[]{"eval", "--rules", rules.toString(), "--resource",
                        resource.toString(), "--output", "json"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        List<String> errLines = err.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(errLines.toString(), exit, is(0));
        JsonObject shadow = json(errLines.getFirst()).getJsonObject("shadow");
        List<String> evalVerdicts = Stream.concat(shadow.getJsonArray("mutate").stream(),
                shadow.getJsonArray("validate").stream()).map(ModesParityTest::describe).toList();
        List<String> evalWarnings = errLines.subList(1, errLines.size()).stream()
                .map(line -> line.substring("remold eval: warning: ".length())).toList();

        try (var server = new TestServer(dir.resolve("server"), 1 << 20, DecisionsOverHttpsTest.REFS,
                BindingListener.NONE)) {
            server.rules(RULES);
            JsonObject mutated = WebhookServerTest.response(server.post("/mutate", "application/json",
                    ModesOverHttpsTest.review("m1", pod)));
            assertThat(mutated.getBoolean("allowed"), is(true));
            // The object the API server would send the validating webhook: with the enforced rule's label.
            JsonObject validated = WebhookServerTest.response(server.post("/validate", "application/json",
                    ModesOverHttpsTest.review("v1", ModesOverHttpsTest.pod("nginx:latest",
                            "\"app\":\"web\",\"patched\":\"yes\""))));
            List<String> serverWarnings = validated.getJsonArray("warnings").getValuesAs(JsonString::getString);
            Eventually.await("every verdict", () -> server.verdicts.recorded().size() == evalVerdicts.size()
                    + evalWarnings.size());
            List<String> serverVerdicts = server.verdicts.recorded().stream()
                    .filter(r -> r.mode() == io.remold.api.RuleMode.SHADOW)
                    .map(r -> r.family() + " " + r.rule() + " " + describe(r.verdict())).toList();
            assertThat(serverVerdicts, equalTo(evalVerdicts));
            assertThat(serverWarnings, equalTo(evalWarnings));
            assertThat(evalVerdicts.size(), is(3));
            assertThat(evalWarnings.size(), is(1));
        }
    }

    /** A verdict of eval's JSON section as one line. */
    private static String describe(JsonValue item) {
        JsonObject verdict = item.asJsonObject();
        String detail = verdict.containsKey("patch") ? verdict.getJsonArray("patch").toString()
                : verdict.getString("message", verdict.getString("error", ""));
        return verdict.getString("family") + " " + verdict.getString("rule") + " " + verdict.getString("verdict")
                + " " + detail;
    }

    /** A verdict the server recorded, worded as {@link #describe(JsonValue)} words eval's. */
    private static String describe(Verdict verdict) {
        return switch (verdict) {
            case Verdict.Changes c -> "changed " + c.patch();
            case Verdict.Refuses r -> "refused " + r.message();
            case Verdict.Fails f -> "failed " + f.error();
            case Verdict.Unchanged u -> "unchanged ";
        };
    }
}

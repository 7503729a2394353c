package io.remold.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.remold.api.AdmissionOperation;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The benchmark policies are valid kinitiras policies, and each selecting one makes its own change to the Pod. */
class KinitirasPoliciesTest {
    private static final JsonProvider JSON = JsonProvider.provider();

    @ParameterizedTest
    @CsvSource({
        // form, policies, selecting, what policy n adds to the Pod's annotations | labels
        "plaintext, 10, 10, added-by-N=plaintext | policy-N=applied",
        "plaintext, 5, 1, added-by-N=plaintext | policy-N=applied",
        "template, 10, 10, added-by-N=template restart-policy-N=Always | policy-N=applied",
        "template, 5, 1, added-by-N=template restart-policy-N=Always | policy-N=applied",
        "cue, 10, 10, added-by-N=cue | ",
        "cue, 5, 1, added-by-N=cue | ",
    })
    void theSelectingPoliciesChangeThePodAndNoOtherPolicyDoes(String form, int count, int selecting, String adds)
            throws IOException {
        JsonObject pod = (JsonObject) KinitirasPolicies.pod();

        JsonValue patched = JSON.createPatch(mutate(form, count, selecting, pod).patch()).apply(pod);

        var annotations = JSON.createObjectBuilder(pod.getJsonObject("metadata").getJsonObject("annotations"));
        var labels = JSON.createObjectBuilder(pod.getJsonObject("metadata").getJsonObject("labels"));
        String[] sides = adds.split("\\|", -1);
        for (int n = 0; n < selecting; n++) {
            expect(annotations, sides[0], n);
            expect(labels, sides[1], n);
        }
        JsonObject metadata = JSON.createObjectBuilder(pod.getJsonObject("metadata"))
            .add("annotations", annotations).add("labels", labels).build();
        assertThat(patched, equalTo(JSON.createObjectBuilder(pod).add("metadata", metadata).build()));
    }

    @Test
    void unknownFormsAndSelectionsOutsideThePoliciesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> KinitirasPolicies.yaml("origin", 1, 1));
        assertThrows(IllegalArgumentException.class, () -> KinitirasPolicies.yaml("cue", 2, 3));
        assertThrows(IllegalArgumentException.class, () -> KinitirasPolicies.yaml("cue", 2, 0));
    }

    @Test
    void theReviewIsACreateOfThePodInTheBenchmarkNamespace() throws IOException {
        JsonObject request = KinitirasPolicies.review().getJsonObject("request");
        assertThat(request.getString("operation"), is("CREATE"));
        assertThat(request.getString("namespace"), is(RuleMix.TARGET_NAMESPACE));
        assertThat(request.getJsonObject("kind"), equalTo(JSON.createObjectBuilder(Map.of("group", "",
            "version", "v1", "kind", "Pod")).build()));
    }

    private static Decision mutate(String form, int count, int selecting, JsonValue pod) {
        Engine engine = KinitirasPolicies.engine(form, count, selecting);
        assertThat(engine.stageRuleCount(), is(count));
        return engine.mutate(new AdmissionRequest(AdmissionOperation.CREATE, RuleMix.TARGET_NAMESPACE, pod, null,
            null, null, false));
    }

    /** Adds the members {@code key-N=value ...} of {@code spec} for policy {@code n}. */
    private static void expect(JsonObjectBuilder members, String spec, int n) {
        for (String member : spec.trim().split("\\s+")) {
            if (!member.isEmpty()) {
                String[] keyValue = member.replace("-N=", "-" + n + "=").split("=");
                members.add(keyValue[0], keyValue[1]);
            }
        }
    }
}

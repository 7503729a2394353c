package io.remold.server.kube;

import io.remold.api.ModRuleException;
import io.remold.engine.RuleCompilation;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.StringReader;
import java.util.List;
import java.util.Optional;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

class ReadyConditionTest {
    @Test
    void compiledRuleIsReady() {
        assertThat(ReadyCondition.of(new RuleCompilation("team-a/r", List.of()), 7),
                is(new ReadyCondition(true, "Compiled", "rule compiled", 7)));
    }

    @Test
    void everyCompileProblemIsInTheMessage() {
        var compilation = new RuleCompilation("team-a/r", List.of(
                new RuleCompilation.Problem("spec.match[0].select", 3, "unexpected end"),
                new RuleCompilation.Problem("spec.patch[1].value", 12, "unclosed tag")));
        assertThat(ReadyCondition.of(compilation, 2), is(new ReadyCondition(false, "CompileError",
                "spec.match[0].select (at 3): unexpected end; spec.patch[1].value (at 12): unclosed tag", 2)));
    }

    @ParameterizedTest(name = "field \"{0}\"")
    @CsvSource(delimiter = '|', nullValues = "null", value = {
        "spec.type | spec.type: expected Patch or Reject",
        "''        | expected Patch or Reject",
        "null      | expected Patch or Reject",
    })
    void unreadableRuleNamesItsField(String field, String message) {
        var unreadable = new ModRuleException("ModRule team-a/r", 1, field, 0, 0, "expected Patch or Reject");
        assertThat(ReadyCondition.of(unreadable, 4), is(new ReadyCondition(false, "CompileError", message, 4)));
    }

    @Test
    void readyConditionIsFoundAmongOthers() {
        var observed = ReadyCondition.observed(json("{'status':{'conditions':[{'type':'Other','status':'True'},"
                + "{'type':'Ready','status':'False','reason':'CompileError','message':'m','observedGeneration':3,"
                + "'lastTransitionTime':'2026-01-02T03:04:05Z'}]}}"));
        assertThat(observed, is(Optional.of(new ReadyCondition.Observed(
                new ReadyCondition(false, "CompileError", "m", 3), "2026-01-02T03:04:05Z"))));
    }

    /** Gatekeeper's own CRD prunes the conditions: the one in force is read back from byPod, with the error's type. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "{'enforced':true,'observedGeneration':2} | true | Compiled | mutator compiled",
        "{'enforced':false,'observedGeneration':2,'errors':[{'type':'ErrConflictingSchema','message':'m'}]} | false | ErrConflictingSchema | m",
        "{'enforced':false,'observedGeneration':2,'errors':[{'message':'m'}]} | false | CompileError | m",
    })
    void conditionIsReadFromByPodWithoutConditions(String pod, boolean ready, String reason, String message) {
        var observed = ReadyCondition.observed(json("{'status':{'byPod':[" + pod + "]}}"));
        assertThat(observed, is(Optional.of(new ReadyCondition.Observed(
                new ReadyCondition(ready, reason, message, 2), null))));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "{}",
        "{'status':{}}",
        "{'status':{'conditions':[{'type':'Other','status':'True'}]}}",
        "{'status':{'conditions':'Ready'}}",
    })
    void noReadyConditionYet(String manifest) {
        assertThat(ReadyCondition.observed(json(manifest)), is(Optional.empty()));
    }

    private static JsonObject json(String text) {
        try (var reader = Manifests.JSON.createReader(new StringReader(text.replace('\'', '"')))) {
            return reader.readObject();
        }
    }
}

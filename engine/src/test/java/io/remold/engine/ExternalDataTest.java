package io.remold.engine;

import io.remold.api.AdmissionOperation;
import io.remold.templating.ExternalData;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.remold.engine.Rules.rule;
import static io.remold.engine.TestJson.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

/** The template function {@code external} in rules: one view per request, explain lines, failures per rule. */
class ExternalDataTest {
    private static final String POD = """
            {'apiVersion':'v1','kind':'Pod','metadata':{'name':'web','namespace':'shop'},
             'spec':{'containers':[{'name':'a','image':'nginx:1.25'},{'name':'b','image':'redis:7'}]}}""";

    /** Provider "mirror" knows two images; any other provider fails closed. Counts views and keys asked. */
    private static final class FakeExternalData implements ExternalData {
        final List<String> asked = new ArrayList<>();
        int views;

        @Override
        public Map<String, Answer> fetch(String provider, Collection<String> keys) {
            var answers = new LinkedHashMap<String, Answer>();
            for (String key : keys) {
                asked.add(provider + " " + key);
                answers.put(key, provider.equals("mirror") && !key.startsWith("unknown")
                        ? Answer.of(Json.PROVIDER.createValue("mirror.io/" + key), "file")
                        : Answer.failed("not in the file", false, "file"));
            }
            return answers;
        }

        @Override
        public ExternalData forRequest() {
            views++;
            return ExternalData.recording(this);
        }
    }

    private static final String MIRROR = """
            {type: Patch, match: [{select: '$.kind', matchValue: Pod}],
             patch: [{op: replace, select: '$.spec.containers[*].image', path: '/spec/containers/#0/image',
                      value: '{{ SelectedItem | external "mirror" }}'}]}""";
    private static final String LABEL = """
            {type: Patch, match: [{select: '$.kind', matchValue: Pod}],
             patch: [{op: add, path: /metadata/labels, value: 'mirrored: "yes"'}]}""";

    private static AdmissionRequest request(String object, boolean explain) {
        return new AdmissionRequest(AdmissionOperation.CREATE, "shop", json(object), null, null, null, explain);
    }

    private static RuleOutcome outcome(Decision decision, String rule) {
        return decision.outcomes().stream().filter(o -> o.rule().equals(rule)).findFirst().orElseThrow();
    }

    @Test
    void aPatchRuleAsksOnceForEverySelectedValueThroughOneViewPerRequest() {
        var external = new FakeExternalData();
        Engine engine = Engine.builder().externalData(external).rule(rule("shop", "mirror", MIRROR))
                .rule(rule("shop", "label", LABEL)).build();
        Decision decision = engine.mutate(request(POD, false));
        assertThat(decision.patch(), equalTo(json("""
                [{'op':'add','path':'/metadata/labels','value':{'mirrored':'yes'}},
                 {'op':'replace','path':'/spec/containers/0/image','value':'mirror.io/nginx:1.25'},
                 {'op':'replace','path':'/spec/containers/1/image','value':'mirror.io/redis:7'}]""")));
        assertThat(external.asked, contains("mirror nginx:1.25", "mirror redis:7"));
        assertThat(external.views, is(1));
    }

    @Test
    void explainAddsTheAnswersToTheOutcomeOfTheRuleThatAsked() {
        Engine engine = Engine.builder().externalData(new FakeExternalData()).rule(rule("shop", "mirror", MIRROR))
                .rule(rule("shop", "label", LABEL)).build();
        Decision decision = engine.mutate(request(POD, true));
        assertThat(outcome(decision, "shop/mirror").references(), contains(
                "external mirror \"nginx:1.25\": \"mirror.io/nginx:1.25\" (file)",
                "external mirror \"redis:7\": \"mirror.io/redis:7\" (file)"));
        assertThat(outcome(decision, "shop/label").references(), empty());
    }

    @Test
    void aClosedFailureFailsOnlyItsRule() {
        String unknown = POD.replace("nginx:1.25", "unknown:1");
        Engine engine = Engine.builder().externalData(new FakeExternalData()).rule(rule("shop", "mirror", MIRROR))
                .rule(rule("shop", "label", LABEL)).build();
        Decision decision = engine.mutate(request(unknown, true));
        assertThat(decision.patch(), equalTo(json("[{'op':'add','path':'/metadata/labels','value':{'mirrored':'yes'}}]")));
        RuleOutcome mirror = outcome(decision, "shop/mirror");
        assertThat(mirror.error(), is("value of replace /spec/containers/0/image: external \"mirror\" key \"unknown:1\":"
                + " not in the file at line 1, column 19"));
        assertThat(mirror.references(), contains("external mirror \"unknown:1\": failed: not in the file (file)"));
    }

    @Test
    void withoutExternalDataACallFailsClosed() {
        Decision decision = Engine.builder().rule(rule("shop", "mirror", MIRROR)).build().mutate(request(POD, false));
        assertThat(decision.patch(), equalTo(JsonValue.EMPTY_JSON_ARRAY));
        assertThat(outcome(decision, "shop/mirror").error(), is("value of replace /spec/containers/0/image: external"
                + " \"mirror\" key \"nginx:1.25\": no external data provider \"mirror\" here at line 1, column 19"));
    }

    private static final String REJECT = """
            {type: Reject, match: [{select: '$.kind', matchValue: Pod}],
             rejectMessage: 'use {{ Target.spec.containers[0].image | external "%s" }} instead'}""";

    @Test
    void aRejectMessageUsesAnAnswer() {
        var external = new FakeExternalData();
        Engine engine = Engine.builder().externalData(external).rule(rule("shop", "mirror-only",
                REJECT.formatted("mirror"))).build();
        Decision decision = engine.validate(request(POD, true));
        assertThat(decision.rejections().getFirst().message(), is("use mirror.io/nginx:1.25 instead"));
        assertThat(outcome(decision, "shop/mirror-only").references(),
                contains("external mirror \"nginx:1.25\": \"mirror.io/nginx:1.25\" (file)"));
        assertThat(external.views, is(1));
    }

    @Test
    void aRejectRuleWhoseMessageFailsStillRejects() {
        Engine engine = Engine.builder().externalData(new FakeExternalData()).rule(rule("shop", "mirror-only",
                REJECT.formatted("gone"))).build();
        Decision decision = engine.validate(request(POD, false));
        assertThat(decision.allowed(), is(false));
        assertThat(decision.rejections().getFirst().message(), nullValue());
        assertThat(outcome(decision, "shop/mirror-only").error(), is("rejectMessage: external \"gone\" key"
                + " \"nginx:1.25\": not in the file at line 1, column 42"));
    }

    @Test
    void stagesGetTheRequestsView() {
        var external = new FakeExternalData();
        var seen = new ArrayList<ExternalData>();
        MutationStage stage = new MutationStage() {
            @Override
            public int ruleCount() {
                return 1;
            }

            @Override
            public JsonObject mutate(JsonObject object, AdmissionRequest request, List<RuleOutcome> outcomes) {
                throw new AssertionError("the engine passes its view");
            }

            @Override
            public JsonObject mutate(JsonObject object, AdmissionRequest request, List<RuleOutcome> outcomes,
                                     List<Rejection> rejections, ExternalData view) {
                seen.add(view);
                view.fetch("mirror", List.of("nginx:1.25"));
                return object;
            }
        };
        Engine engine = Engine.builder().externalData(external).rule(rule("shop", "mirror", MIRROR)).stage(stage)
                .build();
        engine.mutate(request(POD, false));
        assertThat(external.views, is(1));
        assertThat(seen.size(), is(1));
        assertThat(external.asked, contains("mirror nginx:1.25", "mirror redis:7", "mirror nginx:1.25"));
    }
}

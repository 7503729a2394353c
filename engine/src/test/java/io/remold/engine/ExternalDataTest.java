package io.remold.engine;

import io.remold.api.AdmissionOperation;
import io.remold.api.Provider;
import io.remold.api.YamlJson;
import io.remold.templating.ExternalData;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

    /** A stage of one rule (such as Gatekeeper's) that hands the engine's view to {@code asks}. */
    private static MutationStage askingStage(java.util.function.Consumer<ExternalData> asks) {
        return new MutationStage() {
            @Override
            public RuleFamily family() {
                return new RuleFamily("asking", "asked by", "asked-by");
            }

            @Override
            public int ruleCount() {
                return 1;
            }

            @Override
            public JsonObject mutate(JsonObject object, StageContext context) {
                asks.accept(context.external());
                return object;
            }
        };
    }

    @Test
    void stagesGetTheRequestsView() {
        var external = new FakeExternalData();
        var seen = new ArrayList<ExternalData>();
        MutationStage stage = askingStage(view -> {
            seen.add(view);
            view.fetch("mirror", List.of("nginx:1.25"));
        });
        Engine engine = Engine.builder().externalData(external).rule(rule("shop", "mirror", MIRROR)).stage(stage)
                .build();
        engine.mutate(request(POD, false));
        assertThat(external.views, is(1));
        assertThat(seen.size(), is(1));
        assertThat(external.asked, contains("mirror nginx:1.25", "mirror redis:7", "mirror nginx:1.25"));
    }

    /**
     * Provider "mirror" serves the rules of namespace b only ({@code spec.namespaces: [b]}): a view per caller
     * refuses the others, as the server's does.
     */
    private static final class TenantExternalData implements ExternalData {
        final Provider mirror = Provider.fromJson((JsonObject) YamlJson.parse("{apiVersion: remold.io/v1beta1,"
                + " kind: Provider, metadata: {name: mirror}, spec: {url: 'https://m/x', namespaces: [b]}}", "test")
                .getFirst(), "test");
        final List<String> callers = new ArrayList<>();

        @Override
        public Map<String, Answer> fetch(String provider, Collection<String> keys) {
            return fetch(keys, null);
        }

        private Map<String, Answer> fetch(Collection<String> keys, String refusal) {
            var answers = new LinkedHashMap<String, Answer>();
            keys.forEach(key -> answers.put(key, refusal != null ? Answer.failed(refusal, false, "refused")
                    : Answer.of(Json.PROVIDER.createValue("mirror.io/" + key), "file")));
            return answers;
        }

        @Override
        public ExternalData forCaller(String namespace, boolean clusterWide) {
            callers.add(namespace + " " + clusterWide);
            return (provider, keys) -> fetch(keys, mirror.refusal(namespace, clusterWide));
        }

        @Override
        public ExternalData forRequest() {
            return ExternalData.recording(this);
        }
    }

    /** Rules call as their namespace: only where the Provider serves, or from the system namespace or a file. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', useHeadersInDisplayName = true, textBlock = """
            ruleNamespace | objectNamespace | caller             | served
            a             | a               | a false            | false
            b             | b               | b false            | true
            remold-system | a               | remold-system true | true
            ''            | a               | null true          | true
            """)
    void aRuleGetsAnswersOnlyFromProvidersServingItsNamespace(String ruleNamespace, String objectNamespace,
                                                              String caller, boolean served) {
        var external = new TenantExternalData();
        String pod = POD.replace("'namespace':'shop'", "'namespace':'" + objectNamespace + "'");
        Engine engine = Engine.builder().externalData(external).systemNamespace("remold-system")
                .rule(rule(ruleNamespace.isEmpty() ? null : ruleNamespace, "mirror",
                        MIRROR.replace("{type: Patch,", "{type: Patch, targetNamespaceRegex: '.*',"))).build();
        Decision decision = engine.mutate(new AdmissionRequest(AdmissionOperation.CREATE, objectNamespace,
                json(pod), null, null, null, true));
        RuleOutcome outcome = decision.outcomes().stream().filter(o -> o.rule().endsWith("mirror")).findFirst()
                .orElseThrow();
        assertThat(external.callers, contains(caller));
        if (served) {
            assertThat(outcome.error(), nullValue());
            assertThat(decision.patch().toString(), org.hamcrest.Matchers.containsString("mirror.io/nginx:1.25"));
        } else {
            assertThat(decision.patch(), equalTo(JsonValue.EMPTY_JSON_ARRAY));
            assertThat(outcome.error(), is("value of replace /spec/containers/0/image: external \"mirror\" key"
                    + " \"nginx:1.25\": Provider mirror does not serve rules in namespace a (its spec.namespaces)"
                    + " at line 1, column 19"));
            assertThat(outcome.references(), contains("external mirror \"nginx:1.25\": failed: Provider mirror does"
                    + " not serve rules in namespace a (its spec.namespaces) (refused)"));
        }
    }

    @Test
    void aRejectRuleOutsideTheProvidersNamespacesRejectsWithoutItsMessage() {
        Engine engine = Engine.builder().externalData(new TenantExternalData()).rule(rule("shop", "mirror-only",
                REJECT.formatted("mirror"))).build();
        Decision decision = engine.validate(request(POD, false));
        assertThat(decision.allowed(), is(false));
        assertThat(decision.rejections().getFirst().message(), nullValue());
        assertThat(outcome(decision, "shop/mirror-only").error(), is("rejectMessage: external \"mirror\" key"
                + " \"nginx:1.25\": Provider mirror does not serve rules in namespace shop (its spec.namespaces)"
                + " at line 1, column 42"));
    }

    @Test
    void stagesCallClusterWide() {
        var external = new TenantExternalData();
        var answers = new ArrayList<ExternalData.Answer>();
        MutationStage gatekeeper = askingStage(view -> answers.addAll(view.fetch("mirror", List.of("nginx:1.25"))
                .values()));
        Engine engine = Engine.builder().externalData(external).stage(gatekeeper).build();
        engine.mutate(request(POD, false)); // an object in namespace shop, which the Provider does not serve
        assertThat(answers.getFirst().value(), equalTo(Json.PROVIDER.createValue("mirror.io/nginx:1.25")));
        assertThat(external.callers, empty());
    }
}

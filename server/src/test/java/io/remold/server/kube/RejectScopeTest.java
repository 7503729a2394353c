package io.remold.server.kube;

import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1LabelSelectorRequirement;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RuleWithOperations;
import io.kubernetes.client.openapi.models.V1ValidatingWebhook;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import io.remold.api.ModRule;
import io.remold.api.ModRules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

class RejectScopeTest {
    private static final io.remold.scripting.ScriptFamily SCRIPTS = new io.remold.scripting.ScriptFamily();
    private final RecordingSink rules = new RecordingSink();
    private final AtomicInteger changes = new AtomicInteger();
    private final RejectScope scope = new RejectScope(rules, "remold-system", "kubemod-system",
            changes::incrementAndGet);

    private static ModRule rule(String apiVersion, String namespace, String name, String type, String select) {
        return ModRules.parse("""
                apiVersion: %s
                kind: ModRule
                metadata: {name: %s%s}
                spec:
                  type: %s
                  match:
                    - select: '%s'
                """.formatted(apiVersion, name, namespace == null ? "" : ", namespace: " + namespace, type, select),
                "test").getFirst();
    }

    private static ModRule reject(String namespace, String name) {
        return rule(ModRule.REMOLD_API_VERSION, namespace, name, "Reject", "$.kind");
    }

    @Test
    void onlyRejectRulesThatCompileCountAndEachChangeIsReported() {
        assertThat(scope.namespaces(), is(empty()));
        scope.put("a", reject("shop", "no-latest"));
        scope.put("b", rule(ModRule.REMOLD_API_VERSION, "web", "label", "Patch", "$.kind"));
        scope.put("c", rule(ModRule.REMOLD_API_VERSION, "broken-ns", "bad", "Reject", "broken"));
        scope.put("d", reject("billing", "no-root"));
        assertThat(scope.namespaces(), contains("billing", "shop"));
        assertThat("the Patch and the broken rule changed nothing", changes.get(), is(2));
        scope.put("a", reject("shop", "no-latest")); // the same again
        assertThat(changes.get(), is(2));
        scope.put("a", rule(ModRule.REMOLD_API_VERSION, "shop", "no-latest", "Patch", "$.kind"));
        scope.remove("d");
        assertThat(scope.namespaces(), is(empty()));
        assertThat(changes.get(), is(4));
        assertThat("every rule that compiles reaches the store", rules.keys(), contains("a", "b"));
    }

    /** A script rule declaring {@code function} only (read by the scripting module; here the declaration matters). */
    private static io.remold.scripting.ScriptRule script(String kind, String namespace, String function) {
        return new io.remold.scripting.ScriptRule(kind, namespace, "s", List.of(), "function " + function + "(obj) {}",
                java.util.Map.of(function, List.of("obj")));
    }

    @Test
    void aScriptThatValidatesRejectsInItsNamespaceOrEverywhereWhenClusterWide() {
        String validates = io.remold.scripting.Scripts.VALIDATE;
        scope.put("n", SCRIPTS, script("JsAdmission", "shop", validates));
        scope.put("m", SCRIPTS, script("JsAdmission", "web", "jsa_mutate"));
        assertThat(scope.namespaces(), contains("shop"));
        assertThat(changes.get(), is(1));
        scope.put("n", SCRIPTS, script("JsAdmission", "shop", validates)); // the same again
        assertThat(changes.get(), is(1));
        scope.put("c", SCRIPTS, script("ClusterJsAdmission", "shop", validates)); // the kind decides, not the namespace
        assertThat(scope.namespaces(), nullValue());
        scope.put("c", SCRIPTS, script("ClusterJsAdmission", null, "jsa_mutate"));
        assertThat(scope.namespaces(), contains("shop"));
        assertThat(changes.get(), is(3));
    }

    @Test
    void aRejectRuleInASystemNamespaceReachesEverything() {
        scope.put("a", reject("shop", "no-latest"));
        scope.put("k", rule(ModRule.KUBEMOD_API_VERSION, "kubemod-system", "protect", "Reject", "$.kind"));
        assertThat(scope.namespaces(), nullValue());
        scope.remove("k");
        scope.put("s", reject("remold-system", "protect-namespaces"));
        assertThat(scope.namespaces(), nullValue());
        scope.remove("s");
        assertThat("a remold.io rule in kubemod-system is an ordinary namespace's",
                scope.put("r", reject("kubemod-system", "x")).ok(), is(true));
        assertThat(scope.namespaces(), contains("kubemod-system", "shop"));
    }

    /** F13: without kubemod-compat (no KubeMod system namespace) a kubemod rule there reaches its namespace only. */
    @Test
    void withoutAKubemodSystemNamespaceAKubemodRuleReachesItsOwnNamespace() {
        var plain = new RejectScope(rules, "remold-system", null, changes::incrementAndGet);
        plain.put("k", rule(ModRule.KUBEMOD_API_VERSION, "kubemod-system", "protect", "Reject", "$.kind"));
        assertThat(plain.namespaces(), contains("kubemod-system"));
    }

    /** The installer's configuration: ignored namespaces, kube-system excluded, the dragnet's rules. */
    private static V1ValidatingWebhookConfiguration installed(String extraIn, String scope) {
        var expressions = new java.util.ArrayList<>(List.of(
                new V1LabelSelectorRequirement().key("admission.remold.io/ignore").operator("NotIn")
                        .values(List.of("true")),
                new V1LabelSelectorRequirement().key("kubernetes.io/metadata.name").operator("NotIn")
                        .values(List.of("kube-system"))));
        if (extraIn != null) {
            expressions.add(new V1LabelSelectorRequirement().key("kubernetes.io/metadata.name").operator("In")
                    .values(List.of(extraIn.split(","))));
        }
        var webhook = new V1ValidatingWebhook().name("validate.remold.io")
                .namespaceSelector(new V1LabelSelector().matchExpressions(expressions))
                .rules(List.of(new V1RuleWithOperations().apiGroups(List.of("*")).apiVersions(List.of("*"))
                        .operations(List.of("CREATE")).resources(List.of("pods")).scope(scope)));
        // The ModRule webhook comes first here, so that the Reject webhook's index shows in the paths; it is never
        // touched.
        var modrules = new V1ValidatingWebhook().name("modrule.remold.io")
                .namespaceSelector(new V1LabelSelector().matchExpressions(List.of(
                        new V1LabelSelectorRequirement().key("kubernetes.io/metadata.name").operator("NotIn")
                                .values(List.of("kube-system")))))
                .rules(List.of(new V1RuleWithOperations().resources(List.of("modrules")).scope("Namespaced")));
        return new V1ValidatingWebhookConfiguration().metadata(new V1ObjectMeta().name("remold-validating")
                .resourceVersion("42")).webhooks(List.of(modrules, webhook));
    }

    private static final String TEST = "{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"42\"}";
    private static final String KEEP = "{\"key\":\"admission.remold.io/ignore\",\"operator\":\"NotIn\",\"values\":"
            + "[\"true\"]},{\"key\":\"kubernetes.io/metadata.name\",\"operator\":\"NotIn\",\"values\":[\"kube-system\"]}";

    static Stream<Arguments> patches() {
        return Stream.of(
                Arguments.of("the dragnet narrowed to two namespaces", installed(null, null), set("billing", "shop"),
                        "[" + TEST + ",{\"op\":\"add\",\"path\":\"/webhooks/1/namespaceSelector/matchExpressions\","
                                + "\"value\":[" + KEEP + ",{\"key\":\"kubernetes.io/metadata.name\",\"operator\":\"In\","
                                + "\"values\":[\"billing\",\"shop\"]}]},{\"op\":\"add\",\"path\":"
                                + "\"/webhooks/1/rules/0/scope\",\"value\":\"Namespaced\"}]"),
                Arguments.of("no Reject rule: a name no namespace can have", installed(null, "*"), set(),
                        "[" + TEST + ",{\"op\":\"add\",\"path\":\"/webhooks/1/namespaceSelector/matchExpressions\","
                                + "\"value\":[" + KEEP + ",{\"key\":\"kubernetes.io/metadata.name\",\"operator\":\"In\","
                                + "\"values\":[\"no-reject-rules.remold.io\"]}]},{\"op\":\"add\",\"path\":"
                                + "\"/webhooks/1/rules/0/scope\",\"value\":\"Namespaced\"}]"),
                Arguments.of("a cluster-wide rule widens it back", installed("shop", "Namespaced"), null,
                        "[" + TEST + ",{\"op\":\"add\",\"path\":\"/webhooks/1/namespaceSelector/matchExpressions\","
                                + "\"value\":[" + KEEP + "]},{\"op\":\"add\",\"path\":\"/webhooks/1/rules/0/scope\","
                                + "\"value\":\"*\"}]"),
                Arguments.of("already narrowed: nothing to write", installed("billing,shop", "Namespaced"),
                        set("billing", "shop"), "[]"),
                Arguments.of("already everything: nothing to write", installed(null, "*"), null, "[]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("patches")
    void patchBringsTheWebhookToTheReach(String what, V1ValidatingWebhookConfiguration current,
                                        SortedSet<String> namespaces, String expected) {
        assertThat(RejectScope.patch(current, namespaces).toString(), is(expected));
    }

    private static SortedSet<String> set(String... names) {
        return new TreeSet<>(List.of(names));
    }
}

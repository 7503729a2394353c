package io.remold.kinitiras;

import io.remold.api.AllowedUrls;
import io.remold.engine.Family;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The family seen from the rules module: its resources, reader ({@code policies.yaml}) and compilation. */
class KinitirasFamilyTest {
    private final KinitirasFamily family = new KinitirasFamily();

    static Stream<Arguments> cases() {
        return Cases.of("policies.yaml");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void reads(String name, JsonObject c) {
        JsonObject manifest = c.containsKey("repeat") ? repeated(c.getJsonObject("manifest"), c.getInt("repeat"))
                : c.getJsonObject("manifest");
        assertThat(family.owns(manifest), is(true));
        String refused = Cases.text(c, "refused");
        String refusedStart = Cases.text(c, "refusedStartsWith");
        if (refused != null || refusedStart != null) {
            var e = assertThrows(InvalidPolicyException.class, () -> family.parse(manifest));
            assertThat(e.getMessage(), refused != null ? is(refused) : startsWith(refusedStart));
            return;
        }
        Policy policy = family.parse(manifest);
        Family.Compiled compiled = family.compile(new TreeMap<>(Map.of("key", policy)));
        assertThat(compiled.disabled(), is(Map.of()));
        assertThat(compiled.stage().isPresent(), is(true));
        assertThat(compiled.outcomeNames(), contains(policy.id()));
    }

    /** The manifest with its first plaintext operation {@code times} over. */
    private static JsonObject repeated(JsonObject manifest, int times) {
        JsonObject overriders = manifest.getJsonObject("spec").getJsonArray("overrideRules").getJsonObject(0)
                .getJsonObject("overriders");
        var plaintext = Json.createArrayBuilder(Collections.nCopies(times,
                overriders.getJsonArray("plaintext").get(0)));
        return Json.createObjectBuilder(manifest).add("spec", Json.createObjectBuilder()
                .add("overrideRules", Json.createArrayBuilder().add(Json.createObjectBuilder()
                        .add("overriders", Json.createObjectBuilder().add("plaintext", plaintext)))))
                .build();
    }

    @Test
    void servesTheThreeKindsOfKinitirasGroup() {
        assertThat(family.resources().stream().map(r -> r.group() + "/" + r.version() + " " + r.kind() + " "
                + r.plural()).toList(), contains(
                "policy.kcloudlabs.io/v1alpha1 OverridePolicy overridepolicies",
                "policy.kcloudlabs.io/v1alpha1 ClusterOverridePolicy clusteroverridepolicies",
                "policy.kcloudlabs.io/v1alpha1 ClusterValidatePolicy clustervalidatepolicies"));
        assertThat(family.owns(Cases.yaml("{apiVersion: policy.kcloudlabs.io/v2, kind: X}")), is(true));
        assertThat(family.owns(Cases.yaml("{apiVersion: remold.io/v1beta1, kind: ModRule}")), is(false));
    }

    @Test
    void onlyValidatePoliciesRefuseInTheValidatingWebhookAndEveryNamespace() {
        Policy validate = family.parse(Cases.yaml("""
                {apiVersion: policy.kcloudlabs.io/v1alpha1, kind: ClusterValidatePolicy, metadata: {name: v},
                 spec: {validateRules: []}}"""));
        Policy override = family.parse(Cases.yaml("""
                {apiVersion: policy.kcloudlabs.io/v1alpha1, kind: OverridePolicy, metadata: {name: o, namespace: t},
                 spec: {overrideRules: []}}"""));
        assertThat(family.refusesIn(validate), is(Optional.of("")));
        assertThat(family.refusesIn(override), is(Optional.empty()));
        assertThat(family.id(override), is("OverridePolicy/t/o"));
        assertThat(family.id(validate), is("ClusterValidatePolicy/v"));
    }

    /** An override template reading one kind, a validate condition reading two (data and value). */
    private static final String READS_KINDS = """
            {apiVersion: policy.kcloudlabs.io/v1alpha1, kind: %s, metadata: {name: p, namespace: team},
             spec: {%s}}""";

    @Test
    void aPolicyReportsTheKindsItsK8sReferencesReadAndWhetherInEveryNamespace() {
        Policy override = family.parse(Cases.yaml(READS_KINDS.formatted("OverridePolicy", """
                overrideRules: [{overriders: {template: {type: annotations, operation: replace, path: tier,
                  valueRef: {from: k8s, path: /data/tier, k8s: {apiVersion: v1, kind: ConfigMap, name: settings}}}}},
                 {overriders: {template: {type: annotations, operation: replace, path: owner,
                  valueRef: {from: owner, path: /metadata/name}}}}]""")));
        assertThat(family.referencedKinds(override),
                is(java.util.Set.of(new Family.ReferencedKind("v1", "ConfigMap", false))));

        Policy validate = family.parse(Cases.yaml(READS_KINDS.formatted("ClusterValidatePolicy", """
                validateRules: [{template: {type: condition, condition: {cond: Gte, message: m,
                  dataRef: {from: k8s, path: /spec/replicas, k8s: {apiVersion: apps/v1, kind: Deployment, name: d}},
                  valueRef: {from: k8s, path: /data/min,
                    k8s: {apiVersion: v1, kind: ConfigMap, name: limits}}}}}]""")));
        assertThat(family.referencedKinds(validate), is(java.util.Set.of(
                new Family.ReferencedKind("apps/v1", "Deployment", true),
                new Family.ReferencedKind("v1", "ConfigMap", true))));
    }

    @Test
    void aPolicyWhoseHttpReferenceReachesNoAllowedPrefixIsNotInForceNamingTheField() {
        var allowing = new KinitirasFamily(new HttpAnswers() {
            @Override
            public AllowedUrls allowed() {
                return AllowedUrls.parse(java.util.List.of("http://config.team.svc/api"));
            }

            @Override
            public jakarta.json.JsonValue answer(HttpCall call, long deadlineNanos) {
                throw new AssertionError("compiling calls nothing");
            }
        }, KinitirasOptions.DEFAULTS);
        String template = """
                overrideRules: [{overriders: {template: {type: annotations, operation: replace, path: tier,
                  valueRef: {from: http, path: body.tier, http: {url: '%s', method: GET}}}}}]""";
        Policy allowed = allowing.parse(Cases.yaml(READS_KINDS.formatted("OverridePolicy",
                template.formatted("http://config.team.svc/api/{{metadata.name}}"))));
        Policy elsewhere = allowing.parse(Cases.yaml(READS_KINDS.formatted("ClusterOverridePolicy",
                template.formatted("http://config.team.svc.evil.com/api"))));
        Family.Compiled compiled = allowing.compile(new TreeMap<>(Map.of("a", allowed, "b", elsewhere)));
        assertThat(compiled.disabled(), is(Map.of("b", "spec.overrideRules[0].overriders.template.valueRef.http.url:"
                + " http valueRef http://config.team.svc.evil.com/api: not under a URL prefix the server allows"
                + " (--allow-http-ref http://config.team.svc/api)")));
        assertThat(compiled.ruleCount(), is(1));
        assertThat(family.compile(new TreeMap<>(Map.of("a", allowed))).disabled(), is(Map.of("a",
                "spec.overrideRules[0].overriders.template.valueRef.http.url: " + AllowedUrls.NONE_ALLOWED)));
    }
}

package io.remold.rules;

import io.remold.api.ModRuleException;
import io.remold.api.RuleControls;
import io.remold.api.RuleMode;
import io.remold.api.ExistingPolicy;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Family;
import io.remold.rules.impact.AdmissionVerdicts;
import io.remold.rules.impact.RuleVerdict;
import io.remold.rules.impact.Verdict;
import io.remold.rules.impact.Verdicts;
import io.remold.api.YamlJson;
import jakarta.json.JsonObject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Each family's rules read their mode (remold.io ModRules from spec or annotation, every other family from the
 * annotation), refuse a mode that cannot be with its field and line, and the assembly puts Shadow rules in a snapshot
 * of their own; Warn rules stay in the engine and their refusals only warn.
 */
class RuleModesTest {
    /** A rule of each family, with {@code %s} where its annotations go; {@code %2$s} a ModRule's spec line. */
    private static final Map<String, String> RULES = Map.of(
            "patch", """
                    apiVersion: remold.io/v1beta1
                    kind: ModRule
                    metadata: {name: p, namespace: team-a, annotations: {%s}}
                    spec:
                      type: Patch
                      %s
                      match: [{select: '$.kind', matchValue: Pod}]
                      patch: [{op: add, path: /metadata/labels/p, value: '"yes"'}]
                    """,
            "reject", """
                    apiVersion: remold.io/v1beta1
                    kind: ModRule
                    metadata: {name: r, namespace: team-a, annotations: {%s}}
                    spec:
                      type: Reject
                      %s
                      match: [{select: '$.spec.containers[*].image', matchRegex: ':latest$'}]
                      rejectMessage: latest
                    """,
            "kubemod", """
                    apiVersion: api.kubemod.io/v1beta1
                    kind: ModRule
                    metadata: {name: k, namespace: team-a, annotations: {%s}}
                    spec:
                      type: Reject
                      %s
                      match: [{select: '$.kind', matchValue: Pod}]
                    """,
            "mutator", """
                    apiVersion: mutations.gatekeeper.sh/v1
                    kind: AssignMetadata
                    metadata: {name: owner, annotations: {%s}}
                    spec:
                      match: {kinds: [{apiGroups: [""], kinds: [Pod]}]}
                      location: metadata.labels.owner
                      parameters: {assign: {value: team-a}}
                    """,
            "override", """
                    apiVersion: policy.kcloudlabs.io/v1alpha1
                    kind: OverridePolicy
                    metadata: {name: o, namespace: team-a, annotations: {%s}}
                    spec:
                      %s
                      overrideRules:
                      - overriders:
                          plaintext: [{path: /metadata/annotations/a, op: add, value: b}]
                    """,
            "validate", """
                    apiVersion: policy.kcloudlabs.io/v1alpha1
                    kind: ClusterValidatePolicy
                    metadata: {name: v, annotations: {%s}}
                    spec:
                      %s
                      validateRules: []
                    """,
            "modrule-script", """
                    apiVersion: remold.io/v1beta1
                    kind: ModRule
                    metadata: {name: ms, namespace: team-a, annotations: {%s}}
                    spec:
                      type: Script
                      %s
                      kinds: [pods]
                      js: "function jsa_mutate(op, obj) { return {Allowed: false}; }"
                    """,
            "script", """
                    apiVersion: momiji.com/v1
                    kind: JsAdmission
                    metadata: {name: s, namespace: team-a, annotations: {%s}}
                    spec:
                      %s
                      kinds: [pods]
                      js: "function jsa_mutate(op, obj) { return {Allowed: false}; }"
                    """);

    /**
     * Rule, annotations, spec line (remold.io only; else empty), and the controls read or the error (field: reason
     * start) with its line.
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource(delimiter = '|', textBlock = """
            patch    |                                  |                  | Enforce Ignore
            patch    | 'remold.io/mode': Shadow         |                  | Shadow Ignore
            patch    |                                  | 'mode: Shadow'   | Shadow Ignore
            patch    |                                  | 'existing: Apply'| Enforce Apply
            patch    | 'remold.io/mode': Shadow         | 'mode: Shadow'   | Shadow Ignore
            patch    | 'remold.io/mode': Shadow         | 'mode: Enforce'  | error spec.mode: differs from metadata.annotations.remold.io/mode @6
            patch    |                                  | 'mode: Warn'     | error spec.mode: Warn is for rules that refuse requests @6
            patch    | 'remold.io/mode': Warn           |                  | error metadata.annotations.remold.io/mode: Warn is for rules that refuse requests @3
            patch    |                                  | 'mode: shadow'   | error spec.mode: must be Enforce, Shadow or Warn, not "shadow" @6
            reject   |                                  | 'mode: Warn'     | Warn Ignore
            kubemod  | 'remold.io/mode': Warn           |                  | Warn Ignore
            kubemod  |                                  | 'mode: Warn'     | error spec.mode: only remold.io/v1beta1 rules have it @6
            mutator  | 'remold.io/mode': Shadow         |                  | Shadow Ignore
            mutator  | 'remold.io/mode': Warn           |                  | error metadata.annotations.remold.io/mode: Warn is for rules that refuse requests @3
            mutator  | 'remold.io/existing': Sometimes  |                  | error metadata.annotations.remold.io/existing: must be Ignore or Apply, not "Sometimes" @3
            override | 'remold.io/mode': Warn           |                  | error metadata.annotations.remold.io/mode: Warn is for rules that refuse requests @3
            override | 'remold.io/mode': Shadow         |                  | Shadow Ignore
            validate | 'remold.io/mode': Warn           |                  | Warn Ignore
            script   | 'remold.io/mode': Warn           |                  | Warn Ignore
            modrule-script |                            | 'mode: Warn'     | Warn Ignore
            modrule-script |                            | 'mode: Sometimes'| error spec.mode: must be Enforce, Shadow or Warn, not "Sometimes" @6
            script   | 'remold.io/mode': 7              |                  | error metadata.annotations.remold.io/mode: must be a string: Enforce, Shadow or Warn @3
            """)
    void eachFamilyReadsItsModeOrRefusesItNamingTheField(String rule, String annotations, String specLine,
                                                          String expected) {
        String text = RULES.get(rule).formatted(annotations == null ? "" : annotations,
                specLine == null ? "" : specLine);
        String source = text;
        if (expected.startsWith("error ")) {
            var e = assertThrows(ModRuleException.class, () -> RuleDocuments.read(source, "rules.yaml"));
            String field = expected.substring("error ".length(), expected.indexOf(": "));
            String reason = expected.substring(expected.indexOf(": ") + 2, expected.lastIndexOf(" @"));
            assertThat(e.getMessage(), e.field(), is(field));
            assertThat(e.getMessage(), e.problem().startsWith(reason), is(true));
            assertThat(e.getMessage(), e.line(), is(Integer.parseInt(expected.substring(expected.lastIndexOf('@') + 1))));
            return;
        }
        String[] controls = expected.split(" ");
        assertThat(RuleDocuments.read(source, "rules.yaml").getFirst().controls(), is(new RuleControls(
                RuleMode.of(controls[0]).orElseThrow(), ExistingPolicy.of(controls[1]).orElseThrow())));
    }

    private static final String SET = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: label, namespace: team-a}
            spec:
              type: Patch
              match: [{select: '$.kind', matchValue: Pod}]
              patch: [{op: add, path: /metadata/labels/patched, value: '"yes"'}]
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: tier, namespace: team-a}
            spec:
              type: Patch
              mode: Shadow
              references:
              - {name: cm, apiVersion: v1, kind: ConfigMap, objectName: settings, onMissing: empty}
              match: [{select: '$.metadata.labels.patched', matchValue: 'yes'}]
              patch: [{op: add, path: /metadata/labels/tier, value: '"web"'}]
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata: {name: no-latest, namespace: team-a}
            spec:
              type: Reject
              mode: Warn
              match: [{select: '$.spec.containers[*].image', matchRegex: ':latest$'}]
              rejectMessage: latest
            ---
            apiVersion: mutations.gatekeeper.sh/v1
            kind: AssignMetadata
            metadata: {name: owner, annotations: {remold.io/mode: Shadow}}
            spec:
              match: {kinds: [{apiGroups: [""], kinds: [Pod]}]}
              location: metadata.labels.owner
              parameters: {assign: {value: team-a}}
            """;

    private static final JsonObject POD = (JsonObject) YamlJson.parse("""
            {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: team-a},
             spec: {containers: [{name: c, image: 'nginx:latest'}]}}
            """, "pod.yaml").getFirst();

    @Test
    void shadowRulesAreAssembledApartAndWarnRulesRefuseOnlyAsWarnings() {
        List<Family<?>> families = Families.create();
        List<Family<?>> shadowFamilies = Families.create();
        try {
            Snapshot snapshot = RuleAssemblyTest.assembly(families, shadowFamilies)
                    .assemble(RuleAssemblyTest.read(SET));
            assertThat(snapshot.engine().ruleCount(), is(2));
            assertThat(snapshot.engine().stageRuleCount(), is(0));
            Snapshot shadow = snapshot.shadow().orElseThrow();
            assertThat(shadow.engine().ruleCount(), is(1));
            assertThat(shadow.engine().stageRuleCount(), is(1));
            assertThat(shadow.shadow().isPresent(), is(false));
            assertThat(snapshot.modes(), equalTo(Map.of("team-a/tier", RuleMode.SHADOW,
                    "AssignMetadata/owner", RuleMode.SHADOW, "team-a/no-latest", RuleMode.WARN)));
            assertThat(shadow.modes(), equalTo(Map.of("team-a/tier", RuleMode.SHADOW,
                    "AssignMetadata/owner", RuleMode.SHADOW)));
            // The Shadow rules' references start their caches and their verdicts are counted under their names.
            assertThat(snapshot.referencedKinds(), equalTo(Set.of("v1 ConfigMap")));
            assertThat(snapshot.outcomeNames().containsAll(Set.of("team-a/tier", "AssignMetadata/owner",
                    "team-a/label", "team-a/no-latest")), is(true));

            AdmissionRequest request = AdmissionRequest.create("team-a", POD);
            Decision mutation = snapshot.engine().mutate(request);
            Decision validation = snapshot.engine().validate(request.withObject(mutation.result()));
            assertThat(validation.allowed(), is(false));
            assertThat(snapshot.enforced(validation).allowed(), is(true));
            assertThat(snapshot.warned(validation), equalTo(List.of("ModRule team-a/no-latest would refuse: latest")));
            assertThat(snapshot.warnedRules(validation), equalTo(List.of("team-a/no-latest")));
            assertThat(AdmissionVerdicts.warned(snapshot, request.withObject(mutation.result()), validation), equalTo(List.of(new RuleVerdict(
                    validation.rejections().getFirst().family(), "team-a/no-latest", new Verdict.Refuses("latest")))));
            // Shadow rules run on the object the enforced rules made: tier reads the label label added.
            assertThat(AdmissionVerdicts.mutate(snapshot, request, mutation, System.nanoTime() + 1_000_000_000L)
                    .stream().map(v -> v.rule() + " " + v.verdict()).toList(), equalTo(List.of(
                    "team-a/tier Changes[patch=[{\"op\":\"add\",\"path\":\"/metadata/labels/tier\",\"value\":\"web\"}]]",
                    "AssignMetadata/owner Changes[patch=[{\"op\":\"add\",\"path\":\"/metadata/labels/owner\","
                            + "\"value\":\"team-a\"}]]")));
            assertThat(AdmissionVerdicts.mutate(snapshot, request, null, System.nanoTime() + 1_000_000_000L)
                    .stream().map(RuleVerdict::rule).toList(), equalTo(List.of("AssignMetadata/owner")));
        } finally {
            families.forEach(Family::close);
            shadowFamilies.forEach(Family::close);
        }
    }

    @Test
    void aRuleThatMatchedAndDidNothingIsUnchangedAndOneThatFailedFails() {
        List<Family<?>> families = Families.create();
        try {
            Snapshot snapshot = RuleAssemblyTest.assembly(families, List.of()).assemble(RuleAssemblyTest.read("""
                    apiVersion: remold.io/v1beta1
                    kind: ModRule
                    metadata: {name: same, namespace: team-a}
                    spec:
                      type: Patch
                      match: [{select: '$.kind', matchValue: Pod}]
                      patch: [{op: add, select: '$.spec.initContainers[*]', path: /spec/initContainers/#0/x,
                               value: '"y"'}]
                    ---
                    apiVersion: remold.io/v1beta1
                    kind: ModRule
                    metadata: {name: broken, namespace: team-a}
                    spec:
                      type: Patch
                      match: [{select: '$.kind', matchValue: Pod}]
                      patch: [{op: replace, path: /spec/missing/deeper, value: '"x"'}]
                    """));
            AdmissionRequest request = AdmissionRequest.create("team-a", POD);
            Decision decision = snapshot.engine().mutate(request);
            List<RuleVerdict> verdicts = Verdicts.of(decision, request.object(), rule -> true);
            assertThat(verdicts.stream().map(RuleVerdict::rule).toList(),
                    equalTo(List.of("team-a/broken", "team-a/same")));
            assertThat(verdicts.get(0).verdict() instanceof Verdict.Fails, is(true));
            assertThat(verdicts.get(1).verdict(), is(Verdict.UNCHANGED));
            assertThat(Verdicts.of(decision, request.object(), rule -> rule.endsWith("same")).size(), is(1));
        } finally {
            families.forEach(Family::close);
        }
    }
}

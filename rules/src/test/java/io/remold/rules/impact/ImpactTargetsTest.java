package io.remold.rules.impact;

import io.remold.engine.Family;
import io.remold.engine.Family.TargetKind;
import io.remold.rules.Families;
import io.remold.rules.RuleDocuments;
import io.remold.rules.RuleSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/** The kinds a rule of each family can decide, as an impact scan lists them. */
class ImpactTargetsTest {
    private static List<Family<?>> families;

    @BeforeAll
    static void create() {
        families = Families.create();
    }

    @AfterAll
    static void close() {
        families.forEach(Family::close);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            modrule kind                | remold.io/v1beta1 | ModRule | spec: {type: Patch, match: [{select: '$.kind', matchValue: Pod}], patch: [{op: add, path: /metadata/labels/a, value: b}]} | *:Pod
            modrule kinds and group     | remold.io/v1beta1 | ModRule | spec: {type: Reject, match: [{select: '$.apiVersion', matchValues: [apps/v1, apps/v1beta1]}, {select: '$.kind', matchValues: [Deployment, StatefulSet]}]} | apps:Deployment apps:StatefulSet
            modrule core group          | api.kubemod.io/v1beta1 | ModRule | spec: {type: Reject, match: [{select: '$.apiVersion', matchValue: v1}, {select: '$.kind', matchValue: Service}]} | :Service
            modrule two kind items      | remold.io/v1beta1 | ModRule | spec: {type: Reject, match: [{select: '$.kind', matchValues: [Pod, Service]}, {select: '$.kind', matchValue: Pod}]} | *:Pod
            modrule negated kind        | remold.io/v1beta1 | ModRule | spec: {type: Reject, match: [{select: '$.kind', matchValue: Pod, negate: true}]} | any
            modrule regex kind          | remold.io/v1beta1 | ModRule | spec: {type: Reject, match: [{select: '$.kind', matchRegex: 'Pod.*'}]} | any
            modrule other select        | remold.io/v1beta1 | ModRule | spec: {type: Reject, match: [{select: '$.metadata.name', matchValue: x}]} | any
            mutator                     | mutations.gatekeeper.sh/v1 | AssignMetadata | spec: {match: {kinds: [{apiGroups: ['', apps], kinds: [Pod, Deployment]}]}, location: metadata.labels.a, parameters: {assign: {value: b}}} | :Deployment :Pod apps:Deployment apps:Pod
            mutator any group           | mutations.gatekeeper.sh/v1 | AssignMetadata | spec: {match: {kinds: [{apiGroups: ['*'], kinds: [Pod]}]}, location: metadata.labels.a, parameters: {assign: {value: b}}} | any
            mutator any kind            | mutations.gatekeeper.sh/v1 | AssignMetadata | spec: {match: {kinds: [{apiGroups: [''], kinds: ['*']}]}, location: metadata.labels.a, parameters: {assign: {value: b}}} | any
            script                      | momiji.com/v1 | ClusterJsAdmission | spec: {kinds: [pods, services], js: 'function jsa_validate(obj) { return {Allowed: true}; }'} | *:pods* *:services*
            script without kinds        | momiji.com/v1 | ClusterJsAdmission | spec: {js: 'function jsa_validate(obj) { return {Allowed: true}; }'} | any
            policy                      | policy.kcloudlabs.io/v1alpha1 | ClusterValidatePolicy | spec: {resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}], validateRules: [{targetOperations: [CREATE], template: {type: condition, condition: {cond: Exist, dataRef: {from: current, path: metadata.name}, message: m}}}]} | apps:Deployment
            """)
    void targets(String name, String apiVersion, String kind, String body, String expected) {
        String manifest = "apiVersion: " + apiVersion + "\nkind: " + kind + "\nmetadata: {name: r, namespace: "
                + (kind.startsWith("Cluster") || apiVersion.startsWith("mutations") ? "" : "team-a") + "}\n" + body;
        RuleSet single = RuleSet.of(RuleDocuments.read(manifest, name + ".yaml"));
        assertThat(text(ImpactTargets.of(single, families)), equalTo(expected));
    }

    /** Sorted {@code group:kind}, a group of any as *, a resource marked with *. */
    private static String text(Optional<Set<TargetKind>> targets) {
        return targets.map(set -> set.stream().map(t -> (t.group() == null ? "*" : t.group()) + ":"
                + (t.kind() != null ? t.kind() : t.resource() + "*")).sorted().collect(Collectors.joining(" ")))
                .orElse("any");
    }
}

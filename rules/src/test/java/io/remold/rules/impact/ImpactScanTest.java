package io.remold.rules.impact;

import io.remold.api.RuleMode;
import io.remold.api.YamlJson;
import io.remold.engine.CompiledRules;
import io.remold.engine.Family;
import io.remold.engine.ReferenceResolver;
import io.remold.rules.Families;
import io.remold.rules.RuleAssembly;
import io.remold.rules.RuleDocuments;
import io.remold.rules.RuleSet;
import io.remold.templating.ExternalData;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** One rule of each family alone against existing objects: the verdict per object, and the tally of them. */
class ImpactScanTest {
    private static final Map<String, String> RULES = Map.of(
            "label", """
                    apiVersion: remold.io/v1beta1
                    kind: ModRule
                    metadata: {name: label, namespace: team-a}
                    spec:
                      type: Patch
                      match: [{select: '$.kind', matchValue: Deployment}]
                      patch: [{op: add, path: /metadata/labels/team, value: a}]
                    """,
            "no-latest", """
                    apiVersion: remold.io/v1beta1
                    kind: ModRule
                    metadata: {name: no-latest, namespace: team-a}
                    spec:
                      type: Reject
                      rejectMessage: '{{ Target.metadata.name }} uses a latest image'
                      match: [{select: '$.spec.template.spec.containers[*].image', matchRegex: ':latest$'}]
                    """,
            "broken", """
                    apiVersion: remold.io/v1beta1
                    kind: ModRule
                    metadata: {name: broken, namespace: team-a}
                    spec:
                      type: Patch
                      match: [{select: '$.kind', matchValue: Deployment}]
                      patch: [{op: replace, path: /spec/missing/field, value: x}]
                    """,
            "mutator", """
                    apiVersion: mutations.gatekeeper.sh/v1
                    kind: AssignMetadata
                    metadata: {name: owner}
                    spec:
                      match: {kinds: [{apiGroups: [apps], kinds: [Deployment]}]}
                      location: metadata.annotations.owner
                      parameters: {assign: {value: platform}}
                    """);

    private static final Map<String, String> OBJECTS = Map.of(
            "plain", deployment("team-a", "web", "nginx:1.27", ""),
            "latest", deployment("team-a", "api", "nginx:latest", ""),
            "labelled", deployment("team-a", "db", "postgres:17", "labels: {team: a}, annotations: {owner: platform}"),
            "other-namespace", deployment("team-b", "web", "nginx:1.27", ""));

    private static List<Family<?>> families;
    private static RuleAssembly assembly;

    @BeforeAll
    static void assemble() {
        families = Families.create();
        assembly = new RuleAssembly("remold-system", null, ExternalData.NONE, ReferenceResolver.NONE,
                new CompiledRules(), families, List.of());
    }

    @AfterAll
    static void close() {
        families.forEach(Family::close);
    }

    private static String deployment(String namespace, String name, String image, String metadata) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: %s, namespace: %s%s}
                spec: {template: {spec: {containers: [{name: main, image: "%s"}]}}}
                """.formatted(name, namespace, metadata.isEmpty() ? "" : ", " + metadata, image);
    }

    /** The label rule in mode Shadow: a scan enforces it all the same. */
    private static final String SHADOW_LABEL = RULES.get("label").replace("name: label,", "name: shadow-label,")
            .replace("type: Patch", "type: Patch\n  mode: Shadow");

    private static ImpactScan scan(String rule) {
        String manifest = rule.equals("shadow-label") ? SHADOW_LABEL : RULES.get(rule);
        return new ImpactScan(assembly, RuleSet.of(RuleDocuments.read(manifest, rule + ".yaml")),
                RuleMode.SHADOW, namespace -> null);
    }

    private static JsonObject object(String name) {
        return YamlJson.parse(OBJECTS.get(name), name).getFirst().asJsonObject();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource(delimiter = '|', textBlock = """
            label     | plain           | changes [{"op":"add","path":"/metadata/labels","value":{"team":"a"}}]
            label     | labelled        | unchanged
            shadow-label | plain        | changes [{"op":"add","path":"/metadata/labels","value":{"team":"a"}}]
            label     | other-namespace | unchanged
            no-latest | latest          | refuses api uses a latest image
            no-latest | plain           | unchanged
            broken    | plain           | fails
            mutator   | plain           | changes [{"op":"add","path":"/metadata/annotations","value":{"owner":"platform"}}]
            mutator   | labelled        | unchanged
            mutator   | other-namespace | changes [{"op":"add","path":"/metadata/annotations","value":{"owner":"platform"}}]
            """)
    void eachRuleAloneDecidesEachObjectAsACreate(String rule, String object, String expected) {
        assertThat(text(scan(rule).evaluate(object(object), ImpactSink.NONE)), expected.equals("fails")
                ? containsString("fails ") : equalTo(expected));
    }

    private static String text(Verdict verdict) {
        return switch (verdict) {
            case Verdict.Changes c -> "changes " + c.patch();
            case Verdict.Refuses r -> "refuses " + r.message();
            case Verdict.Fails f -> "fails " + f.error();
            case Verdict.Unchanged u -> "unchanged";
        };
    }

    @Test
    void verdictsGoToTheSinkNamedAsOutcomesNameTheRule() {
        var tally = new ImpactTally(1);
        for (String rule : List.of("label", "mutator")) {
            ImpactScan scan = scan(rule);
            OBJECTS.keySet().stream().sorted().forEach(name -> scan.evaluate(object(name), tally));
        }
        String summary = tally.impacts().stream().map(impact -> impact.family().name() + " " + impact.rule() + " "
                + impact.mode().written() + " " + impact.byKind() + " samples " + impact.samples().size()
                + " first " + impact.samples().getFirst().object().name())
                .collect(Collectors.joining("\n"));
        assertThat(summary, equalTo("""
                ModRule team-a/label Shadow {apps/v1 Deployment=Counts[evaluated=4, changed=2, refused=0, failed=0]} \
                samples 1 first api
                Gatekeeper mutation AssignMetadata/owner Shadow {apps/v1 Deployment=Counts[evaluated=4, changed=3, refused=0, \
                failed=0]} samples 1 first api"""));
    }

    @Test
    void aScanTakesExactlyOneRule() {
        var two = RuleSet.of(RuleDocuments.read(RULES.get("label") + "---\n" + RULES.get("no-latest"), "two.yaml"));
        var thrown = assertThrows(IllegalArgumentException.class,
                () -> new ImpactScan(assembly, two, RuleMode.ENFORCE, namespace -> null));
        assertThat(thrown.getMessage(), equalTo("an impact scan takes one rule, not 2"));
        assertThat(new ImpactTally(0).impacts(), hasSize(0));
    }
}

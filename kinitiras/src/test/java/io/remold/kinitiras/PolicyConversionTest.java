package io.remold.kinitiras;

import io.remold.api.ModRule;
import io.remold.api.YamlJson;
import io.remold.engine.convert.Conversion;
import io.remold.kinitiras.convert.PolicyConversion;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * What {@code remold convert} makes of kinitiras policies, case by case: which policies convert (to how many
 * ModRules) and why the others do not; and for every case, each request of a grid answered the same by the policies
 * as by the converted rules with the policies that did not convert.
 */
class PolicyConversionTest {
    private static final KinitirasFamily FAMILY = new KinitirasFamily();
    private static final String HEAD = "apiVersion: policy.kcloudlabs.io/v1alpha1\n";

    /** A set of policies and, per policy id, {@code "N rules"} or the reason it is refused (a part of it). */
    record Row(String name, String policies, Map<String, String> expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** A cluster policy that labels every object {@code app: web}. */
    private static final String WRITES_APP_LABEL = cluster("a", """
            overrideRules:
            - overriders: {template: {type: labels, operation: add, path: app, value: {string: web}}}
            """);
    private static final String SELECTS_APP_WEB = """
            resourceSelectors: [{apiVersion: v1, kind: Pod, labelSelector: {matchLabels: {app: web}}}]
            """;

    static Stream<Row> rows() {
        return Stream.of(
                new Row("labels templates with constants on selected pods, the last replacing the label selected on",
                        cluster("a", SELECTS_APP_WEB + """
                        overrideRules:
                        - overriders: {template: {type: labels, operation: replace, path: team, value: {string: blue}}}
                        - overriders: {template: {type: labels, operation: replace, path: app, value: {string: api}}}
                        """), Map.of("ClusterOverridePolicy/a", "4 rules")),
                new Row("annotations template: an integer printed as text, a remove, a stringMap", cluster("a", """
                        overrideRules:
                        - overriders: {template: {type: annotations, operation: add, path: count, value: {integer: 5}}}
                        - overriders: {template: {type: annotations, operation: remove, path: note}}
                        - targetOperations: [UPDATE]
                          overriders:
                            template: {type: annotations, operation: add, path: x, value: {stringMap: {a: b, c: d}}}
                        """), Map.of("ClusterOverridePolicy/a", "6 rules")),
                new Row("plaintext: an object then its member, replace of a missing member", cluster("a", """
                        resourceSelectors: [{apiVersion: v1, kind: Pod}, {apiVersion: v1, kind: ConfigMap}]
                        overrideRules:
                        - overriders:
                            plaintext:
                            - {op: add, path: /metadata/annotations, value: {set-by: plaintext}}
                            - {op: replace, path: /metadata/annotations/x, value: {a: [1, 2]}}
                            - {op: replace, path: /metadata/annotations/x/a, value: null}
                            - {op: remove, path: /metadata/annotations/set-by}
                        """), Map.of("ClusterOverridePolicy/a", "1 rules")),
                new Row("plaintext on labels the selector makes certain", cluster("a", """
                        resourceSelectors:
                        - {apiVersion: v1, kind: Pod, labelSelector: {matchLabels: {app: web}}}
                        - {apiVersion: v1, kind: Pod, labelSelector: {matchExpressions: [{key: app, operator: In, values: [api]}]}}
                        overrideRules:
                        - overriders:
                            plaintext:
                            - {op: add, path: /metadata/labels/seen, value: "yes"}
                            - {op: remove, path: /metadata/labels/app}
                        """), Map.of("ClusterOverridePolicy/a", "1 rules")),
                new Row("a path's first segment is ignored", cluster("a", """
                        resourceSelectors: [{apiVersion: v1, kind: Pod, name: web}]
                        overrideRules:
                        - overriders: {plaintext: [{op: add, path: anything/metadata/labels, value: {only: this}}]}
                        """), Map.of("ClusterOverridePolicy/a", "1 rules")),
                new Row("a field selector's matchFields, In and Exists", cluster("a", """
                        resourceSelectors:
                        - apiVersion: v1
                          kind: Pod
                          fieldSelector:
                            matchFields: {spec.nodeName: n1}
                            matchExpressions:
                            - {field: metadata.annotations.example.com/note, operator: In, value: [x, y]}
                            - {field: metadata.labels.app, operator: Exists}
                        overrideRules:
                        - overriders: {plaintext: [{op: add, path: /metadata/annotations/example.com~1note, value: z}]}
                        """), Map.of("ClusterOverridePolicy/a", "1 rules")),
                new Row("a field selector's Exists: a string, not a number or null", cluster("a", """
                        resourceSelectors:
                        - {apiVersion: v1, kind: Pod, fieldSelector: {matchExpressions: [{field: spec.count, operator: Exists}]}}
                        - {apiVersion: v1, kind: Pod, fieldSelector: {matchExpressions: [{field: spec.nodeName, operator: Exists}]}}
                        overrideRules:
                        - overriders: {template: {type: annotations, operation: add, path: scheduled, value: {boolean: true}}}
                        """), Map.of("ClusterOverridePolicy/a", "2 rules")),
                new Row("an OverridePolicy changes its namespace's objects only", namespaced("b", "team-a", """
                        resourceSelectors: [{apiVersion: v1, kind: Pod, namespace: team-a}]
                        overrideRules:
                        - overriders: {template: {type: labels, operation: add, path: tenant, value: {string: a}}}
                        """), Map.of("OverridePolicy/team-a/b", "2 rules")),
                new Row("an OverridePolicy in the system namespace", namespaced("b", "remold-system", """
                        overrideRules:
                        - overriders: {template: {type: labels, operation: add, path: system, value: {string: "yes"}}}
                        """), Map.of("OverridePolicy/remold-system/b", "Remold's system namespace, where a ModRule also"
                        + " applies to cluster-scoped objects")),
                new Row("a rule for DELETE only patches nothing; an empty origin list hides plaintext", cluster("a", """
                        overrideRules:
                        - targetOperations: [DELETE]
                          overriders:
                            plaintext: [{op: add, path: /metadata/x, value: 1}]
                        - overriders:
                            origin: []
                            plaintext: [{op: add, path: /spec/x, value: 1}]
                        """), Map.of("ClusterOverridePolicy/a", "0 rules")),
                new Row("add below a parent that may be missing", cluster("a", """
                        overrideRules:
                        - overriders: {plaintext: [{op: add, path: /metadata/labels/x, value: "1"}]}
                        """), Map.of("ClusterOverridePolicy/a", "spec.overrideRules[0].overriders.plaintext[0].path:"
                        + " /metadata/labels/x: kinitiras's add fails")),
                new Row("remove of a member that may be missing", cluster("a", """
                        overrideRules:
                        - overriders:
                            plaintext:
                            - {op: add, path: /metadata/annotations, value: {}}
                            - {op: remove, path: /metadata/annotations/gone}
                        """), Map.of("ClusterOverridePolicy/a", "plaintext[1].path: /metadata/annotations/gone:"
                        + " kinitiras's remove fails")),
                new Row("a list index, the whole object", cluster("a", """
                        overrideRules:
                        - overriders: {plaintext: [{op: add, path: /metadata/0, value: 1}]}
                        """) + cluster("b", """
                          overrideRules:
                          - overriders: {plaintext: [{op: replace, path: "", value: {}}]}
                        """), Map.of("ClusterOverridePolicy/a", "the step \"0\" of /metadata/0",
                        "ClusterOverridePolicy/b", "path: \"\" has no step after a /")),
                new Row("CUE, origin, other templates, valueRef, CONNECT: each its own reason", cluster("a", """
                        overrideRules:
                        - overriders: {cue: 'object: _'}
                        """) + validate("v", """
                          validateRules:
                          - targetOperations: [CONNECT]
                            template:
                              type: condition
                              condition: {cond: Exist, dataRef: {from: current, path: /metadata/name}, message: m}
                        """) + namespaced("o", "team-a", """
                        overrideRules:
                        - overriders:
                            origin: [{type: labels, operation: add, value: {a: b}}]
                        """) + namespaced("r", "team-a", """
                        overrideRules:
                        - overriders: {template: {type: resources, operation: add, value: {resources: {limits: {cpu: "1"}}}}}
                        """) + namespaced("s", "team-a", """
                        overrideRules:
                        - overriders: {template: {type: labels, operation: add, path: x,
                            valueRef: {from: current, path: /metadata/name}}}
                        """), Map.of("ClusterOverridePolicy/a", "overriders.cue: CUE is never converted",
                        "ClusterValidatePolicy/v", "targetOperations: CONNECT",
                        "OverridePolicy/team-a/o", "overriders.origin: origin overriders are not converted",
                        "OverridePolicy/team-a/r", "template.type: resources templates are not converted",
                        "OverridePolicy/team-a/s", "it follows ClusterOverridePolicy/a")),
                new Row("a cluster policy writes what a later one selects on: neither converts (the later one would run after it)", WRITES_APP_LABEL + cluster("b", SELECTS_APP_WEB + """
                        overrideRules:
                        - overriders: {template: {type: annotations, operation: add, path: x, value: {string: y}}}
                        """), Map.of("ClusterOverridePolicy/a", "ClusterOverridePolicy/a writes what the"
                        + " resourceSelectors of ClusterOverridePolicy/b read", "ClusterOverridePolicy/b",
                        "ClusterOverridePolicy/a writes what the resourceSelectors of ClusterOverridePolicy/b read")),
                new Row("a policy that stays selects on what an earlier converted one writes", WRITES_APP_LABEL + cluster("b", SELECTS_APP_WEB + """
                        overrideRules:
                        - overriders: {cue: 'object: _'}
                        """), Map.of("ClusterOverridePolicy/a", "ClusterOverridePolicy/a writes what the"
                        + " resourceSelectors of ClusterOverridePolicy/b read",
                        "ClusterOverridePolicy/b", "CUE is never converted")),
                new Row("a cluster policy's writes do not stop an OverridePolicy selected after them", WRITES_APP_LABEL + namespaced("b", "team-a", SELECTS_APP_WEB + """
                        overrideRules:
                        - overriders: {template: {type: annotations, operation: add, path: x, value: {string: y}}}
                        """), Map.of("ClusterOverridePolicy/a", "2 rules", "OverridePolicy/team-a/b", "2 rules")),
                new Row("a policy's own form writes what it selects on", cluster("a", """
                        resourceSelectors: [{apiVersion: v1, kind: Pod, labelSelector: {matchExpressions: [{key: app, operator: NotIn, values: [api]}]}}]
                        overrideRules:
                        - overriders: {template: {type: labels, operation: add, path: app, value: {string: api}}}
                        - overriders: {template: {type: annotations, operation: add, path: x, value: {string: y}}}
                        """), Map.of("ClusterOverridePolicy/a", "a form writes what its resourceSelectors read")),
                new Row("field selectors that hold where kinitiras finds no string", cluster("a", """
                        resourceSelectors:
                        - {apiVersion: v1, kind: Pod, fieldSelector: {matchExpressions: [{field: spec.nodeName, operator: NotIn, value: [n1]}]}}
                        overrideRules:
                        - overriders: {template: {type: annotations, operation: add, path: x, value: {string: y}}}
                        """), Map.of("ClusterOverridePolicy/a", "fieldSelector.matchExpressions[0].operator: NotIn")),
                new Row("validate conditions a match item expresses", validate("v", """
                        resourceSelectors: [{apiVersion: v1, kind: Pod}]
                        validateRules:
                        - template: {type: condition, condition: {cond: NotIn, dataRef: {from: current, path: /metadata/labels/app}, message: bad app, value: {stringSlice: [web, api]}}}
                        - targetOperations: [DELETE]
                          template:
                            type: condition
                            condition: {cond: Exist, dataRef: {from: current, path: /metadata/annotations/note}, message: noted}
                        - template: {type: condition, condition: {cond: NotExist, dataRef: {from: current, path: /spec/nodeName}, message: unscheduled}}
                        - template: {type: condition, condition: {cond: In, dataRef: {from: current, path: /metadata/labels/tier}, message: no db, value: {stringSlice: [db]}}}
                        - template: {type: condition}
                        - template: {type: condition, condition: {cond: Equal, dataRef: {from: current, path: /metadata/labels/team}, message: red, value: {string: red}}}
                        - template: {type: condition, condition: {cond: NotEqual, dataRef: {from: current, path: /metadata/namespace}, message: not a, value: {string: team-a}}}
                        """), Map.of("ClusterValidatePolicy/v", "6 rules")),
                new Row("validate conditions on values that are not strings: a list, a null, a number", validate("v", """
                        validateRules:
                        - template: {type: condition, condition: {cond: In, dataRef: {from: current, path: /spec/tags}, message: tagged, value: {stringSlice: [web]}}}
                        """) + validate("w", """
                        validateRules:
                        - template: {type: condition, condition: {cond: NotIn, dataRef: {from: current, path: /spec/tags}, message: untagged, value: {stringSlice: [x]}}}
                        """) + validate("x", """
                        validateRules:
                        - template: {type: condition, condition: {cond: Exist, dataRef: {from: current, path: /spec/nodeName}, message: null is there}}
                        """) + validate("y", """
                        validateRules:
                        - template: {type: condition, condition: {cond: In, dataRef: {from: current, path: /spec/count}, message: five, value: {stringSlice: ["5"]}}}
                        """), Map.of("ClusterValidatePolicy/v", "1 rules", "ClusterValidatePolicy/w", "1 rules",
                        "ClusterValidatePolicy/x", "1 rules", "ClusterValidatePolicy/y", "1 rules")),
                new Row("labels and annotations copied from the object's text fields, where set", cluster("a", """
                        overrideRules:
                        - overriders: {template: {type: labels, operation: add, path: copied-name,
                            valueRef: {from: current, path: /metadata/name}}}
                        - overriders: {template: {type: annotations, operation: replace, path: tier,
                            valueRef: {from: current, path: /metadata/labels/tier}}}
                        """), Map.of("ClusterOverridePolicy/a", "4 rules")),
                new Row("a copy is written only where its field is set: a later remove may fail", cluster("a", """
                        overrideRules:
                        - overriders:
                            template:
                              type: labels
                              operation: add
                              path: x
                              valueRef: {from: current, path: /metadata/labels/tier}
                            plaintext: [{op: remove, path: /metadata/labels/x}]
                        """), Map.of("ClusterOverridePolicy/a", "plaintext[0].path: /metadata/labels/x: kinitiras's"
                        + " remove fails")),
                new Row("copies that do not convert: old data, a field of any type", namespaced("a", "team-a", """
                        overrideRules:
                        - overriders: {template: {type: labels, operation: add, path: x,
                            valueRef: {from: old, path: /metadata/name}}}
                        """) + namespaced("a", "team-b", """
                        overrideRules:
                        - overriders: {template: {type: labels, operation: add, path: x,
                            valueRef: {from: current, path: /spec/nodeName}}}
                        """) + namespaced("a", "team-c", """
                        overrideRules:
                        - overriders: {template: {type: labels, operation: add, path: x,
                            valueRef: {from: k8s, path: /data/x, k8s: {apiVersion: v1, kind: ConfigMap, name: c}}}}
                        """), Map.of("OverridePolicy/team-a/a", "valueRef.from: old data is not converted",
                        "OverridePolicy/team-b/a", "valueRef.path: kinitiras writes the value as found",
                        "OverridePolicy/team-c/a", "valueRef.from: k8s data is fetched when the request comes")),
                new Row("validate conditions that do not convert", validate("e", """
                        validateRules:
                        - template: {type: condition, condition: {cond: Equal, dataRef: {from: current, path: /spec/nodeName}, message: m, value: {string: n1}}}
                        """) + validate("g", """
                        validateRules:
                        - template: {type: condition, condition: {cond: Gt, dataRef: {from: current, path: /metadata/name}, message: m, value: {string: a}}}
                        """) + validate("i", """
                        validateRules:
                        - template: {type: condition, condition: {cond: Equal, dataRef: {from: current, path: /metadata/name}, message: m, value: {integer: 1}}}
                        """) + validate("o", """
                        validateRules:
                        - template: {type: condition, condition: {cond: Exist, dataRef: {from: old, path: /metadata/name}, message: m}}
                        """) + validate("a", """
                        validateRules:
                        - template: {type: condition, condition: {cond: Exist, affectMode: allow, dataRef: {from: current, path: /metadata/name}, message: m}}
                        """) + validate("m", """
                        validateRules:
                        - template: {type: condition, condition: {cond: Exist, dataRef: {from: current, path: /metadata/name}, message: "{{x}}"}}
                        """) + validate("p", """
                        validateRules:
                        - template: {type: condition, condition: {cond: Exist, dataRef: {from: current, path: /spec/containers/0}, message: m}}
                        """), Map.of("ClusterValidatePolicy/e", "Equal on a field that may hold another type than text",
                        "ClusterValidatePolicy/g", "cond: Gt orders as CUE does",
                        "ClusterValidatePolicy/i", "value: only a string value is converted for Equal",
                        "ClusterValidatePolicy/o", "dataRef.from: old data is not converted",
                        "ClusterValidatePolicy/a", "affectMode: allow",
                        "ClusterValidatePolicy/m", "message: \"{{\" would read as a template tag",
                        "ClusterValidatePolicy/p", "the part \"0\" of /spec/containers/0")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void convertsExactlyOrSaysWhy(Row row) {
        var policies = new TreeMap<String, Policy>();
        var sources = new ArrayList<PolicyConversion.Source>();
        for (JsonValue manifest : YamlJson.parse(row.policies(), row.name())) {
            Policy policy = FAMILY.parse(manifest.asJsonObject());
            policies.put(policy.id(), policy);
            sources.add(new PolicyConversion.Source(policy, manifest.asJsonObject()));
        }
        Map<String, Conversion> conversions = PolicyConversion.convert(sources, "remold-system", 1000);
        var outcomes = new TreeMap<String, String>();
        conversions.forEach((id, conversion) -> outcomes.put(id, switch (conversion) {
            case Conversion.Converted c -> c.rules().size() + " rules";
            case Conversion.Refused r -> r.reason();
        }));
        assertEquals(new TreeMap<>(row.expected()).keySet(), outcomes.keySet());
        row.expected().forEach((id, expected) -> assertThat(id, outcomes.get(id), containsString(expected)));
        for (JsonObject request : GRID) {
            assertNull(ConvertedPoliciesEquivalenceTest.difference(request, policies, conversions),
                    row.name() + ": " + request);
        }
    }

    /** The ModRules themselves, for a policy of each form: their names, scope, tiers, match and patch. */
    @Test
    void convertedRulesReadAsExpected() {
        String policies = cluster("a", """
                resourceSelectors: [{apiVersion: v1, kind: Pod, labelSelector: {matchLabels: {app: web}}}]
                overrideRules:
                - targetOperations: [CREATE]
                  overriders:
                    template: {type: labels, operation: replace, path: team, value: {string: blue}}
                    plaintext: [{op: remove, path: /metadata/labels/app}]
                """) + namespaced("b", "team-a", """
                overrideRules:
                - overriders: {plaintext: [{op: add, path: /metadata/annotations, value: {k: v}}]}
                """) + validate("v", """
                resourceSelectors: [{apiVersion: v1, kind: Pod, name: web}]
                validateRules:
                - template: {type: condition, condition: {cond: NotExist, dataRef: {from: current, path: /metadata/labels/team}, message: no team}}
                """);
        var sources = new ArrayList<PolicyConversion.Source>();
        for (JsonValue manifest : YamlJson.parse(policies, "policies")) {
            sources.add(new PolicyConversion.Source(FAMILY.parse(manifest.asJsonObject()), manifest.asJsonObject()));
        }
        var rules = new ArrayList<String>();
        PolicyConversion.convert(sources, "remold-system", 1000).values().forEach(conversion -> {
            assertThat(conversion, instanceOf(Conversion.Converted.class));
            ((Conversion.Converted) conversion).rules().forEach(rule -> rules.add(describe(rule)));
        });
        assertEquals(List.of(
                "remold-system/clusteroverridepolicy-a-1 Patch tier 1000 [CREATE] ns .*"
                        + " match [($.apiVersion == \"v1\" && $.kind == \"Pod\" && $.metadata.labels.app == \"web\"),"
                        + " isUndefined($.metadata.labels)] patch [add /metadata/labels {}]",
                "remold-system/clusteroverridepolicy-a-2 Patch tier 1001 [CREATE] ns .*"
                        + " match [($.apiVersion == \"v1\" && $.kind == \"Pod\" && $.metadata.labels.app == \"web\")]"
                        + " patch [add /metadata/labels/team blue]",
                "remold-system/clusteroverridepolicy-a-3 Patch tier 1002 [CREATE] ns .*"
                        + " match [($.apiVersion == \"v1\" && $.kind == \"Pod\" && $.metadata.labels.app == \"web\")]"
                        + " patch [remove /metadata/labels/app]",
                "team-a/overridepolicy-b Patch tier 1003 [CREATE, UPDATE] ns null match [isDefined($)]"
                        + " patch [add /metadata/annotations k: v]",
                "remold-system/clustervalidatepolicy-v Reject tier 0 [CREATE, UPDATE, DELETE] ns .* match"
                        + " [($.apiVersion == \"v1\" && $.kind == \"Pod\" && $.metadata.name == \"web\"),"
                        + " isUndefined($.metadata.labels.team)] reject no team"), rules);
    }

    private static String describe(ModRule rule) {
        var spec = rule.spec();
        return rule.namespace() + "/" + rule.name() + " " + spec.type() + " tier " + spec.executionTier() + " "
                + spec.admissionOperations() + " ns " + spec.targetNamespaceRegex() + " match "
                + spec.match().stream().map(m -> m.select()).toList()
                + (spec.patch().isEmpty() ? " reject " + spec.rejectMessage()
                : " patch " + spec.patch().stream().map(op -> op.op() + " " + op.path()
                + (op.value() == null ? "" : " " + op.value())).toList());
    }

    private static String cluster(String name, String spec) {
        return manifest("ClusterOverridePolicy", name, null, spec);
    }

    private static String namespaced(String name, String namespace, String spec) {
        return manifest("OverridePolicy", name, namespace, spec);
    }

    private static String validate(String name, String spec) {
        return manifest("ClusterValidatePolicy", name, null, spec);
    }

    private static String manifest(String kind, String name, String namespace, String spec) {
        return "---\n" + HEAD + "kind: " + kind + "\nmetadata: {name: " + name
                + (namespace == null ? "" : ", namespace: " + namespace) + "}\nspec:\n"
                + spec.indent(2);
    }

    /** Requests the rows' policies select or not: labels, annotations, namespaces, kinds, operations. */
    private static final List<JsonObject> GRID = grid();

    private static List<JsonObject> grid() {
        List<JsonValue> objects = YamlJson.parse("""
                {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: team-a, labels: {app: web},
                  annotations: {note: x, example.com/note: "y"}}, spec: {nodeName: n1}}
                ---
                {apiVersion: v1, kind: Pod, metadata: {name: api, namespace: team-a}, spec: {}}
                ---
                {apiVersion: v1, kind: Pod, metadata: {name: db, namespace: team-b, labels: {app: api, tier: db}},
                  spec: {nodeName: n2}}
                ---
                {apiVersion: v1, kind: Pod, metadata: {name: web, namespace: team-c, labels: {team: red}}}
                ---
                {apiVersion: v1, kind: Pod, metadata: {name: odd, namespace: team-a, labels: {app: web}},
                  spec: {nodeName: null, tags: [web], count: 5}}
                ---
                {apiVersion: v1, kind: ConfigMap, metadata: {name: web, namespace: team-a, labels: {app: web}}}
                ---
                {apiVersion: v1, kind: Namespace, metadata: {name: team-a, labels: {app: web}}}
                """, "grid");
        var requests = new ArrayList<JsonObject>();
        for (JsonValue object : objects) {
            for (String operation : List.of("CREATE", "UPDATE", "DELETE")) {
                var request = Json.createObjectBuilder().add("operation", operation);
                if (!operation.equals("DELETE")) {
                    request.add("object", object);
                }
                if (!operation.equals("CREATE")) {
                    request.add("oldObject", object);
                }
                requests.add(request.build());
            }
        }
        return List.copyOf(requests);
    }
}

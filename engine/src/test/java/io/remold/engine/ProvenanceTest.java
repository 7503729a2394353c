package io.remold.engine;

import io.remold.api.AdmissionOperation;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.remold.engine.Rules.rule;
import static io.remold.engine.TestJson.json;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.sameInstance;
import static org.hamcrest.Matchers.startsWith;
import static org.hamcrest.Matchers.endsWith;

class ProvenanceTest {
    private static final String POD = "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p','namespace':'ns',"
            + "'labels':{'app':'web'}},'spec':{'containers':[{'name':'c','image':'nginx'}]}}";

    private static Decision mutate(Engine engine, JsonValue object, boolean explain) {
        return engine.mutate(new AdmissionRequest(AdmissionOperation.CREATE, "ns", object, null, null, null, explain));
    }

    @Test
    void eachFieldNamesTheRulesThatWroteItInOrderWithTheirMatchItems() {
        Engine engine = Engine.builder()
                .rule(rule("ns", "a", "{type: Patch, executionTier: 0, match: [{select: '$.kind', matchValue: Pod},"
                        + " {select: '$.metadata.labels.app'}], patch: [{op: add, path: /metadata/labels/team,"
                        + " value: one}]}"))
                .rule(rule("ns", "b", "{type: Patch, executionTier: 1, match: [{select: '$.spec.hostNetwork',"
                        + " matchValue: 'true', negate: true}], patch: [{op: add, path: /metadata/labels/team,"
                        + " value: two}, {op: add, path: /spec/priority, value: '3'}]}"))
                .build();
        Decision decision = mutate(engine, json(POD), true);
        List<FieldChange> fields = Provenance.fields(decision, 100, (family, rule) -> rule.equals("ns/b") ? 7 : 0);
        assertThat(fields.stream().map(f -> f.op() + " " + f.path() + " " + f.family() + " " + f.rule() + " "
                + f.generation() + " " + f.reasons()).toList(), contains(
                "add /metadata/labels/team ModRule ns/a 0 [spec.match[0] ($.kind) matchValue \"Pod\": selected"
                        + " \"Pod\", spec.match[1] ($.metadata.labels.app) any value: selected \"web\"]",
                "add /metadata/labels/team ModRule ns/b 7 [spec.match[0] ($.spec.hostNetwork) not matchValue"
                        + " \"true\": selected nothing]",
                "add /spec/priority ModRule ns/b 7 [spec.match[0] ($.spec.hostNetwork) not matchValue \"true\":"
                        + " selected nothing]"));
    }

    @Test
    void withoutAnExplanationTheReasonSaysSo() {
        Engine engine = Engine.builder().rule(rule("ns", "a", "{type: Patch, match: [{select: '$.kind'}],"
                + " patch: [{op: add, path: /metadata/labels/x, value: y}]}")).build();
        FieldChange field = Provenance.fields(mutate(engine, json(POD), false), 100, Provenance.Generations.NONE)
                .getFirst();
        assertThat(field.reasons(), contains(Provenance.MATCHED));
    }

    @Test
    void aRuleAddingAParentOrAFieldInsideCountsForTheField() {
        // /metadata/annotations does not exist: the final patch adds it whole, both rules wrote inside it
        Engine engine = Engine.builder()
                .rule(rule("ns", "a", "{type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: /metadata/annotations/a, value: '1'}]}"))
                .rule(rule("ns", "b", "{type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: /metadata/annotations/b, value: '2'}]}"))
                .build();
        List<FieldChange> fields = Provenance.fields(mutate(engine, json(POD), true), 100,
                Provenance.Generations.NONE);
        assertThat(fields.stream().map(f -> f.path() + " " + f.rule()).toList(),
                contains("/metadata/annotations ns/a", "/metadata/annotations ns/b"));
        assertThat(fields.getFirst().reasons(), contains("spec.match[0] ($.kind) any value: selected \"Pod\""));
    }

    @Test
    void theAnnotationNamesTheLastWriterOfEachFieldAndReplacesWhatTheObjectBrought() {
        Engine engine = Engine.builder()
                .rule(rule("ns", "a", "{type: Patch, match: [{select: '$.kind'}], patch: [{op: add, path: /metadata/labels/team, value: one}]}"))
                .rule(rule("ns", "b", "{type: Patch, executionTier: 1, match: [{select: '$.kind'}], patch: [{op: add, path: /metadata/labels/team,"
                        + " value: two}, {op: add, path: /spec/priority, value: '3'}]}"))
                .build();
        // a forged, huge annotation from the object's author is replaced, never read
        String forged = "x".repeat(100_000);
        JsonObject pod = (JsonObject) json(POD.replace("'labels'", "'annotations':{'remold.io/changed-by':'" + forged
                + "'},'labels'"));
        Decision annotated = Provenance.annotated(mutate(engine, pod, false), pod);
        String value = ((JsonObject) annotated.result()).getJsonObject("metadata").getJsonObject("annotations")
                .getString(Provenance.ANNOTATION);
        assertThat(value, is("{\"ns/b\":[\"/metadata/labels/team\",\"/spec/priority\"]}"));
        assertThat(annotated.patch().toString(), containsString("{\"op\":\"replace\",\"path\":\"/metadata/"
                + "annotations/remold.io~1changed-by\",\"value\":\"{\\\"ns/b\\\":"));
        // admitted again: the rules change nothing, the annotation stays as it is
        Decision again = mutate(engine, (JsonObject) annotated.result(), false);
        assertThat(Provenance.annotated(again, annotated.result()), sameInstance(again));
    }

    @Test
    void theAnnotationIsCappedInPairsAndCharactersAndCountsTheRest() {
        var patch = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            patch.append(i == 0 ? "" : ", ").append("{op: add, path: /metadata/labels/l").append(i)
                    .append(", value: v}");
        }
        Engine engine = Engine.builder().rule(rule("ns", "many", "{type: Patch, match: [{select: '$.kind'}], patch: [" + patch + "]}")).build();
        JsonObject pod = (JsonObject) json(POD);
        Decision annotated = Provenance.annotated(mutate(engine, pod, false), pod);
        String value = ((JsonObject) annotated.result()).getJsonObject("metadata").getJsonObject("annotations")
                .getString(Provenance.ANNOTATION);
        // the labels exist: one operation per label, 40 fields, 16 listed
        assertThat(value, startsWith("{\"ns/many\":[\"/metadata/labels/l0\","));
        assertThat(value, endsWith("\"/metadata/labels/l15\"],\"...\":24}"));

        var long_ = new ArrayList<FieldChange>();
        for (int i = 0; i < 16; i++) {
            long_.add(new FieldChange("/data/" + "k".repeat(100) + i, "add", "ModRule", "ns/r" + i, 0, List.of()));
        }
        String capped = Provenance.annotation(long_, 16);
        assertThat(capped.length(), lessThanOrEqualTo(Provenance.MAX_CHARS));
        assertThat(capped, endsWith("]," + "\"...\":8}"));   // each pair about 120 characters
    }

    @Test
    void aDecisionThatChangedNothingIsNotAnnotated() {
        Engine engine = Engine.builder().rule(rule("ns", "a", "{type: Patch, match: [{select: '$.kind',"
                + " matchValue: Svc}], patch: [{op: add, path: /x, value: '1'}]}")).build();
        JsonObject pod = (JsonObject) json(POD);
        Decision decision = mutate(engine, pod, false);
        assertThat(Provenance.annotated(decision, pod), sameInstance(decision));
    }
}

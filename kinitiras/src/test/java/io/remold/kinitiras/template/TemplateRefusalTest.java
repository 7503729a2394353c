package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import io.remold.kinitiras.ValueSources;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.InputStream;
import java.io.StringReader;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Templates refused when compiled, each naming the offending field; and lookups that fail the evaluation. */
class TemplateRefusalTest {
    private static final String AT = "spec.overrideRules[2].overriders.template";
    private static final String VAT = "spec.validateRules[1].template";
    private static final JsonObject POD = json("{'kind':'Pod','metadata':{'name':'p'}}");

    private static JsonObject json(String text) {
        return Json.createReader(new StringReader(text.replace('\'', '"'))).readObject();
    }

    @TestFactory
    Stream<DynamicTest> refusals() throws Exception {
        try (InputStream in = TemplateRefusalTest.class.getResourceAsStream("template-refusals.json");
             JsonReader reader = Json.createReader(in)) {
            return reader.readObject().getJsonArray("cases").getValuesAs(JsonObject.class).stream()
                    .map(c -> DynamicTest.dynamicTest(c.getString("what"), () -> {
                        boolean override = c.getString("kind").equals("override");
                        String at = override ? AT : VAT;
                        InvalidTemplateException e = assertThrows(InvalidTemplateException.class, () -> {
                            if (override) {
                                OverrideTemplate.parse(c.getJsonObject("template"), at);
                            } else {
                                ValidateTemplate.parse(c.getJsonObject("template"), at);
                            }
                        });
                        assertEquals(at + c.getString("field"), e.field(), e.getMessage());
                    }));
        }
    }

    @Test
    void aHugeStringIsRefusedNotCopied() {
        JsonObject template = Json.createObjectBuilder().add("type", "labels").add("operation", "add")
                .add("path", "a").add("value", Json.createObjectBuilder().add("string", "x".repeat(1 << 20))).build();
        InvalidTemplateException e = assertThrows(InvalidTemplateException.class,
                () -> OverrideTemplate.parse(template, AT));
        assertEquals(AT + ".value.string", e.field());
    }

    @Test
    void aHugeListIsRefused() {
        var tolerations = Json.createArrayBuilder();
        for (int i = 0; i < 10_000; i++) {
            tolerations.add(Json.createObjectBuilder().add("key", "k" + i).add("operator", "Exists"));
        }
        JsonObject template = Json.createObjectBuilder().add("type", "tolerations").add("operation", "replace")
                .add("tolerations", tolerations).build();
        InvalidTemplateException e = assertThrows(InvalidTemplateException.class,
                () -> OverrideTemplate.parse(template, AT));
        assertEquals(AT + ".tolerations", e.field());
    }

    @Test
    void tolerationsTimesObjectTolerationsAreBounded() {
        var many = Json.createArrayBuilder();
        for (int i = 0; i < Fields.MAX_ITEMS; i++) {
            many.add(Json.createObjectBuilder().add("key", "k").add("operator", "Exists"));
        }
        JsonObject template = Json.createObjectBuilder().add("type", "tolerations").add("operation", "remove")
                .add("tolerations", many).build();
        var onObject = Json.createArrayBuilder();
        for (int i = 0; i < 1000; i++) {
            onObject.add(Json.createObjectBuilder().add("key", "k"));
        }
        JsonObject pod = Json.createObjectBuilder().add("kind", "Pod")
                .add("spec", Json.createObjectBuilder().add("tolerations", onObject)).build();
        PolicyEvaluationException e = assertThrows(PolicyEvaluationException.class,
                () -> OverrideTemplate.parse(template, AT).patches(input(pod, JsonValue.NULL, JsonValue.NULL)));
        assertTrue(e.getMessage().contains("more than 4096 patch operations"), e.getMessage());
    }

    /** kinitiras's rewriting of a policy path into CUE ({@code Test_handlePath}). */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            /spec/template/spec/containers/0/tolerations/1/key-1 | spec.template.spec.containers[0].tolerations[1]."key-1"
            a.b.c.d[0] | a.b.c.d[0]
            /metadata/annotations/example.com/team | metadata.annotations.example.com.team
            //spec// | spec
            """)
    void cueText(String path, String cue) {
        assertEquals(cue, CuePath.cueText(path));
    }

    @Test
    void aNamedK8sObjectThatIsMissingFailsTheEvaluation() {
        OverrideTemplate template = OverrideTemplate.parse(json("""
                {'type':'labels','operation':'add','path':'a','valueRef':{'from':'k8s','path':'/metadata/name',
                 'k8s':{'apiVersion':'v1','kind':'ConfigMap','namespace':'default','name':'settings'}}}"""), AT);
        PolicyEvaluationException e = assertThrows(PolicyEvaluationException.class,
                () -> template.patches(input(POD, JsonValue.NULL, JsonValue.EMPTY_JSON_OBJECT)));
        assertTrue(e.getMessage().contains("\"settings\" not found"), e.getMessage());
    }

    @Test
    void anHttpAnswerThatIsNotAnObjectFailsTheEvaluation() {
        ValidateTemplate template = ValidateTemplate.parse(json("""
                {'type':'condition','condition':{'cond':'Exist','dataRef':{'from':'http','path':'body.x',
                 'http':{'url':'https://example.com','method':'GET'}}}}"""), VAT);
        assertThrows(PolicyEvaluationException.class,
                () -> template.refusal(input(POD, JsonValue.NULL, Json.createArrayBuilder().add(1).build())));
    }

    @Test
    void anOwnerIsLookedUpByItsReference() throws PolicyEvaluationException {
        OverrideTemplate template = OverrideTemplate.parse(json("""
                {'type':'labels','operation':'add','path':'owner',
                 'valueRef':{'from':'owner','path':'/metadata/uid'}}"""), AT);
        JsonObject[] asked = new JsonObject[1];
        ValueSources sources = new ValueSources() {
            @Override
            public JsonValue kube(JsonObject reference) {
                asked[0] = reference;
                return json("{'metadata':{'uid':'u-1'}}");
            }

            @Override
            public JsonValue http(JsonObject reference) {
                throw new AssertionError("no http lookup");
            }
        };
        JsonObject pod = json("""
                {'kind':'Pod','metadata':{'name':'p','namespace':'team','labels':{},
                 'ownerReferences':[{'apiVersion':'apps/v1','kind':'ReplicaSet','name':'rs-1'}]}}""");
        assertEquals(json("{'op':'add','path':'/metadata/labels/owner','value':'u-1'}"),
                template.patches(new PolicyInput("CREATE", pod, JsonValue.NULL, sources)).getFirst());
        assertEquals(json("{'apiVersion':'apps/v1','kind':'ReplicaSet','namespace':'team','name':'rs-1'}"), asked[0]);
    }

    private static PolicyInput input(JsonValue object, JsonValue kube, JsonValue http) {
        return new PolicyInput("CREATE", object, JsonValue.NULL,
                new ValueSources() {
                    @Override
                    public JsonValue kube(JsonObject reference) {
                        return kube;
                    }

                    @Override
                    public JsonValue http(JsonObject reference) {
                        return http;
                    }
                });
    }
}

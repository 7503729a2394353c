package io.remold.kinitiras.cue;

import io.remold.cue.CueEvaluator;
import io.remold.cue.CueLimits;
import io.remold.cue.CueWorkers;
import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import io.remold.kinitiras.ValueSources;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The CUE forms of kinitiras's policies on the real worker, with the cases of kinitiras's own tests (pkg v0.4.5):
 * {@code overridemanager_test.go} (TestOverrideManager's overriders2 and overriders4, Test_executeCueV2) and
 * {@code validatemanager_test.go} (TestValidateManager's validatepolicy1-3, Test_executeCueV2).
 */
class CueFormsTest {
    private static final CueWorkers WORKERS = new CueWorkers(CueLimits.DEFAULT);
    private static final CueSettings SETTINGS = new CueSettings(WORKERS, Duration.ofSeconds(10),
            CueEvaluator.Owner.ADMINISTRATOR);
    /** Refuses every reference, as a server does where no administrator allowed one. */
    private static final ValueSources NONE = new ValueSources() {
        @Override
        public JsonValue kube(JsonObject reference) throws PolicyEvaluationException {
            throw new PolicyEvaluationException("no objects here");
        }

        @Override
        public JsonValue http(JsonObject reference) throws PolicyEvaluationException {
            throw new PolicyEvaluationException("http references to " + reference.getString("url")
                    + " are not allowed");
        }
    };

    private static final JsonObject NO_DATA = JsonValue.EMPTY_JSON_OBJECT;

    @AfterAll
    static void close() {
        WORKERS.close();
    }

    @Test
    void overriders2Cue() throws Exception {
        CueOverrider overrider = CueOverrider.cue(SETTINGS, """
                object: _ @tag(object)

                patches: [{
                	path: "/metadata/annotations/cue",
                	op: "add",
                	value: "cue",
                }]
                """);
        assertEquals(List.of(json("{\"op\":\"add\",\"path\":\"/metadata/annotations/cue\",\"value\":\"cue\"}")),
                overrider.patches(input("CREATE", deployment(null), JsonValue.NULL)));
    }

    @Test
    void overriders4RenderedCue() throws Exception {
        String overrider = """
                data:      _ @tag(data)
                object:    data.object
                kind:      object.kind
                patches: [
                    if object.metadata.annotations == _|_ {
                        {
                            op:   "replace"
                            path: "/metadata/annotations"
                            value: {}
                        }
                    },
                    // annotations
                	{
                		op:   "replace"
                		path: "/metadata/annotations/owned-by"
                		value: "template-cue"
                	}
                ]
                """;
        JsonObject ownedBy = json("{\"op\":\"replace\",\"path\":\"/metadata/annotations/owned-by\","
                + "\"value\":\"template-cue\"}");
        assertEquals(List.of(json("{\"op\":\"replace\",\"path\":\"/metadata/annotations\",\"value\":{}}"), ownedBy),
                RenderedCue.patches(SETTINGS, overrider, input("CREATE", deployment(null), JsonValue.NULL), NO_DATA));
        assertEquals(List.of(ownedBy), RenderedCue.patches(SETTINGS, overrider, input("UPDATE",
                deployment("{\"a\":\"b\"}"), deployment(null)), NO_DATA));
    }

    @Test
    void executeCueV2Override() throws Exception {
        String cue = """
                data: _ @tag(data)
                patches: [
                	{
                		op: "add"
                		path: "abc"
                		value: data.object.%s
                	}
                ]
                """;
        PolicyInput named = input("CREATE", json("{\"name\":\"cue\"}"), JsonValue.NULL);
        assertEquals(List.of(json("{\"op\":\"add\",\"path\":\"abc\",\"value\":\"cue\"}")),
                RenderedCue.patches(SETTINGS, cue.formatted("name"), named, NO_DATA));
        PolicyEvaluationException e = assertThrows(PolicyEvaluationException.class,
                () -> RenderedCue.patches(SETTINGS, cue.formatted("name2"), named, NO_DATA));
        assertEquals("overriders.renderedCue: cue: marshal error: patches.0.value: undefined field: name2 (at 6:22)",
                e.getMessage());
    }

    @Test
    void emptyListsInAValueAreNullAsGoDecodesThem() throws Exception {
        CueOverrider overrider = CueOverrider.cue(SETTINGS, """
                object: _
                patches: [{op: "add", path: "/spec/x", value: {a: [], b: [[]], c: [1]}},
                    {op: "add", path: "/y", value: []}]
                """);
        assertEquals(List.of(json("{\"op\":\"add\",\"path\":\"/spec/x\",\"value\":{\"a\":null,\"b\":[null],"
                        + "\"c\":[1]}}"), json("{\"op\":\"add\",\"path\":\"/y\",\"value\":null}")),
                overrider.patches(input("CREATE", json("{}"), JsonValue.NULL)));
    }

    @Test
    void renderedCueSeesTheReferencedData() throws Exception {
        String overrider = """
                data: _ @tag(data)
                owner: data.extraParams.otherObject.metadata.name
                patches: [{op: "add", path: "/metadata/labels/owner", value: owner}]
                """;
        assertEquals(List.of(json("{\"op\":\"add\",\"path\":\"/metadata/labels/owner\",\"value\":\"web\"}")),
                RenderedCue.patches(SETTINGS, overrider, input("CREATE", json("{}"), JsonValue.NULL),
                        Json.createObjectBuilder().add("otherObject", deployment(null)).build()));
    }

    @Test
    void validatepolicy1Cue() throws Exception {
        CueValidator validator = CueValidator.cue(SETTINGS, """
                object: _ @tag(object)

                validate: {
                	valid: object.metadata.name != "ut-validate-policy-success"
                }
                """);
        assertEquals(Optional.empty(), validator.refusal(input("DELETE", pod("test", null), JsonValue.NULL)));
        assertEquals(Optional.of(""), validator.refusal(input("DELETE", pod("ut-validate-policy-success", null),
                JsonValue.NULL)));
    }

    @Test
    void validatepolicy2CueWithTheOldObject() throws Exception {
        CueValidator validator = CueValidator.cue(SETTINGS, """
                object: _ @tag(object)
                oldObject: _ @tag(oldObject)

                validate: {
                	valid: oldObject.metadata.annotations == _|_ && object.metadata.annotations == _|_
                }
                """);
        assertEquals(Optional.empty(), validator.refusal(input("UPDATE", pod("test", null), pod("test", null))));
        assertEquals(Optional.of(""), validator.refusal(input("UPDATE", pod("test", "{\"a\":\"b\"}"),
                pod("test", null))));
    }

    @Test
    void validatepolicy3RenderedCue() throws Exception {
        String validator = """
                data:      _ @tag(data)
                object:    data.object
                oldObject: data.oldObject
                validate: {
                    if object.metadata.annotations == _|_ {
                        valid:   false
                    }
                }
                """;
        assertEquals(Optional.of(""), RenderedCue.refusal(SETTINGS, validator, input("DELETE", pod("test", null),
                JsonValue.NULL), NO_DATA, false));
        assertEquals(Optional.empty(), RenderedCue.refusal(SETTINGS, validator, input("DELETE",
                pod("test", "{\"a\":\"b\"}"), JsonValue.NULL), NO_DATA, false));
    }

    @Test
    void executeCueV2ValidateAndAffectModeAllow() throws Exception {
        String cue = """
                data: _ @tag(data)
                validate: {
                if data.object.name == "cue" {
                		valid: false
                		reason: "name cannot be cue"
                }
                }
                """;
        PolicyInput cueNamed = input("CREATE", json("{\"name\":\"cue\"}"), JsonValue.NULL);
        PolicyInput other = input("CREATE", json("{\"name\":\"other\"}"), JsonValue.NULL);
        assertEquals(Optional.of("name cannot be cue"), RenderedCue.refusal(SETTINGS, cue, cueNamed, NO_DATA, false));
        assertEquals(Optional.empty(), RenderedCue.refusal(SETTINGS, cue, other, NO_DATA, false));
        assertEquals(Optional.empty(), RenderedCue.refusal(SETTINGS, cue, cueNamed, NO_DATA, true));
        assertEquals(Optional.of(""), RenderedCue.refusal(SETTINGS, cue, other, NO_DATA, true));
    }

    @Test
    void outputsOfTheWrongShapeAreErrors() throws Exception {
        PolicyInput any = input("CREATE", json("{}"), JsonValue.NULL);
        PolicyEvaluationException valid = assertThrows(PolicyEvaluationException.class,
                () -> CueValidator.cue(SETTINGS, "validate: valid: \"yes\"\n").refusal(any));
        assertEquals("cue: validate.valid is a string, not a bool", valid.getMessage());
        PolicyEvaluationException patches = assertThrows(PolicyEvaluationException.class,
                () -> CueOverrider.cue(SETTINGS, "patches: [1]\n").patches(any));
        assertEquals("overriders.cue: patches[0] is a number, not an operation", patches.getMessage());
    }

    @Test
    void processingHttpGoesThroughTheRequestsValueSources() throws Exception {
        // utils/cue/cue_test.go, case cue-success-with-processing-http
        CueValidator validator = CueValidator.cue(SETTINGS, """
                object: _ @tag(object)

                processing: {
                  http: {
                    method: *"GET" | string
                    url: "http://127.0.0.1:8090/api/v1/token?val=test-token"
                    request: {
                      body ?: bytes
                      header: {
                        "Accept-Language": "en,nl"
                      }
                      trailer: {
                        "Accept-Language": "en,nl"
                        User: "foo"
                      }
                    }
                  }
                  output: {
                    token?: string
                  }
                }

                validate:{
                	reason: "hello cue"
                	valid: object.metadata.name == "ut-cue-success-with-parameter" && processing.output.token == "test-token"
                }
                """);
        List<JsonObject> asked = new ArrayList<>();
        ValueSources tokens = answering(json("{\"token\":\"test-token\"}"), asked);
        PolicyInput named = new PolicyInput("CREATE", pod("ut-cue-success-with-parameter", null), JsonValue.NULL,
                tokens);
        assertEquals(Optional.empty(), validator.refusal(named));
        assertEquals(List.of(json("{\"url\":\"http://127.0.0.1:8090/api/v1/token?val=test-token\","
                + "\"method\":\"GET\",\"header\":{\"Accept-Language\":\"en,nl\"}}")), asked);
        PolicyEvaluationException refused = assertThrows(PolicyEvaluationException.class, () -> validator.refusal(
                input("CREATE", pod("ut-cue-success-with-parameter", null), JsonValue.NULL)));
        assertEquals("cue: fail to exec http task, http references to "
                + "http://127.0.0.1:8090/api/v1/token?val=test-token are not allowed", refused.getMessage());
    }

    @Test
    void aProcessingHttpBodyIsSentAsJson() throws Exception {
        CueOverrider overrider = CueOverrider.cue(SETTINGS, """
                processing: http: {method: "POST", url: "http://names/", request: body: '{"kind": "Pod"}'}
                patches: [{op: "add", path: "/metadata/labels/name", value: processing.output.name}]
                """);
        List<JsonObject> asked = new ArrayList<>();
        ValueSources names = answering(json("{\"name\":\"n1\"}"), asked);
        assertEquals(List.of(json("{\"op\":\"add\",\"path\":\"/metadata/labels/name\",\"value\":\"n1\"}")),
                overrider.patches(new PolicyInput("CREATE", json("{}"), JsonValue.NULL, names)));
        assertEquals(List.of(json("{\"url\":\"http://names/\",\"method\":\"POST\",\"body\":{\"kind\":\"Pod\"}}")),
                asked);
    }

    /** Answers every http reference with {@code response}, noting each in {@code asked}. */
    private static ValueSources answering(JsonObject response, List<JsonObject> asked) {
        return new ValueSources() {
            @Override
            public JsonValue kube(JsonObject reference) {
                throw new AssertionError(reference);
            }

            @Override
            public JsonValue http(JsonObject reference) {
                asked.add(reference);
                return response;
            }
        };
    }

    private static PolicyInput input(String operation, JsonValue object, JsonValue oldObject) {
        return new PolicyInput(operation, object, oldObject, NONE);
    }

    private static JsonObject deployment(String annotations) {
        return object("apps/v1", "Deployment", "web", annotations);
    }

    private static JsonObject pod(String name, String annotations) {
        return object("v1", "Pod", name, annotations);
    }

    private static JsonObject object(String apiVersion, String kind, String name, String annotations) {
        var metadata = Json.createObjectBuilder().add("name", name).add("namespace", "default");
        if (annotations != null) {
            metadata.add("annotations", json(annotations));
        }
        return Json.createObjectBuilder().add("apiVersion", apiVersion).add("kind", kind).add("metadata", metadata)
                .build();
    }

    private static JsonObject json(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }
}

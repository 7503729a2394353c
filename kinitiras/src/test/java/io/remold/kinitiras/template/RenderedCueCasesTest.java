package io.remold.kinitiras.template;

import io.remold.cue.CueEvaluator;
import io.remold.cue.CueLimits;
import io.remold.cue.CueWorkers;
import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import io.remold.kinitiras.cue.CueSettings;
import io.remold.kinitiras.cue.RenderedCue;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Every case of the template corpus (kinitiras's tests and examples, and the random ones) rendered to CUE and run on
 * the real CUE worker as kinitiras's engine runs a {@code renderedCue}: {@code data: {object, oldObject,
 * extraParams}}, the extraParams fetched as kinitiras fetches them. The result must be the case's (the result of
 * kinitiras's own renderer and cuelang.org/go). A case refused at parse has no CUE to render: its refusal is checked
 * by {@link TemplateCasesTest}. The rendered texts are left in {@code target/rendered-cue-cases.json}, where the
 * template oracle runs them on kinitiras's own engine (oracle/README.md, "Remold's renderedCue").
 */
class RenderedCueCasesTest {
    private static final CueWorkers WORKERS = new CueWorkers(CueLimits.DEFAULT);
    private static final CueSettings SETTINGS = new CueSettings(WORKERS, Duration.ofSeconds(30),
            CueEvaluator.Owner.ADMINISTRATOR);
    private static final Map<String, String> RENDERED = new ConcurrentSkipListMap<>();

    @AfterAll
    static void close() throws IOException {
        WORKERS.close();
        JsonArrayBuilder rendered = Json.createArrayBuilder();
        RENDERED.forEach((id, cue) -> rendered.add(Json.createObjectBuilder().add("id", id).add("renderedCue", cue)));
        Files.writeString(Path.of("target", "rendered-cue-cases.json"), rendered.build().toString());
    }

    /** kinitiras's tests and examples, then the random templates. */
    @TestFactory
    Stream<DynamicTest> everyCaseThatRenders() throws Exception {
        return Stream.concat(cases("template-cases.json"), cases("template-random-cases.json"));
    }

    /** The example of docs/kinitiras-templates.md, "The rendered CUE". */
    @Test
    void anAnnotationRendersAsDocumented() {
        JsonObject template = Json.createObjectBuilder().add("type", "annotations").add("operation", "replace")
                .add("path", "team").add("value", Json.createObjectBuilder().add("string", "a")).build();
        assertEquals("""
                import "list"
                data: _
                object: data.object
                oldObject: data.oldObject
                steps: [
                if object.metadata.annotations == _|_ {{op: "replace", path: "/metadata/annotations", value: {}}},
                {op: "replace", path: "/metadata/annotations/team", value: "a"}
                ]
                patches: list.FlattenN(steps, -1)
                """, OverrideTemplate.parse(template, "template").renderedCue());
    }

    private static Stream<DynamicTest> cases(String file) throws Exception {
        return TemplateCasesTest.corpus(file).stream().filter(c -> !c.getJsonObject("expect").containsKey("refused"))
                .map(c -> DynamicTest.dynamicTest(c.getString("id"), () -> run(c)));
    }

    private static void run(JsonObject c) throws Exception {
        JsonObject expect = c.getJsonObject("expect");
        JsonObject template = c.getJsonObject("template");
        PolicyInput input = TemplateCasesTest.input(c);
        if (c.getString("kind").equals("override")) {
            String cue = OverrideTemplate.parse(template, TemplateCasesTest.OVERRIDE_FIELD).renderedCue();
            RENDERED.put(c.getString("id"), cue);
            WORKERS.compile(cue, CueEvaluator.Owner.ADMINISTRATOR); // an evaluation error below is never a CUE that does not compile
            if (expect.containsKey("error")) {
                assertThrows(PolicyEvaluationException.class, () -> RenderedCue.patches(SETTINGS, cue, input,
                        extraParams(input, template, "valueRef", false, JsonValue.EMPTY_JSON_OBJECT)), cue);
                return;
            }
            List<JsonObject> patches = RenderedCue.patches(SETTINGS, cue, input,
                    extraParams(input, template, "valueRef", false, JsonValue.EMPTY_JSON_OBJECT));
            assertEquals(TemplateCasesTest.canonical(expect.getJsonArray("patches")),
                    TemplateCasesTest.canonical(Json.createArrayBuilder(patches).build()), cue);
            return;
        }
        String cue = ValidateTemplate.parse(template, TemplateCasesTest.VALIDATE_FIELD).renderedCue();
        RENDERED.put(c.getString("id"), cue);
        JsonObject condition = template.getJsonObject("condition");
        PolicyInput seen = "UPDATE".equals(input.operation()) ? input
                : new PolicyInput(input.operation(), input.object(), JsonValue.NULL, input.sources());
        if (cue.isEmpty()) { // kinitiras skips a rule whose template renders nothing
            assertEquals(JsonValue.NULL, expect.get("refusal"));
            return;
        }
        boolean allow = condition.get("affectMode") instanceof JsonString m && m.getString().equals("allow");
        WORKERS.compile(cue, CueEvaluator.Owner.ADMINISTRATOR);
        if (expect.containsKey("error")) {
            assertThrows(PolicyEvaluationException.class, () -> RenderedCue.refusal(SETTINGS, cue, seen,
                    validateParams(seen, condition), allow), cue);
            return;
        }
        JsonValue expected = expect.get("refusal");
        assertEquals(expected instanceof JsonString s ? Optional.of(s.getString()) : Optional.empty(),
                RenderedCue.refusal(SETTINGS, cue, seen, validateParams(seen, condition), allow), cue);
    }

    private static JsonObject validateParams(PolicyInput input, JsonObject condition)
            throws PolicyEvaluationException {
        return extraParams(input, condition, "dataRef", true,
                extraParams(input, condition, "valueRef", false, JsonValue.EMPTY_JSON_OBJECT));
    }

    /** {@code to} with the data of {@code owner}'s reference {@code name} added, when kinitiras fetches it. */
    private static JsonObject extraParams(PolicyInput input, JsonObject owner, String name, boolean dataRef,
                                          JsonObject to) throws PolicyEvaluationException {
        if (!(owner.get(name) instanceof JsonObject reference)) {
            return to;
        }
        Reference parsed = Reference.parse(reference, name);
        if (!parsed.fetched()) {
            return to;
        }
        JsonObjectBuilder params = Json.createObjectBuilder(to);
        return params.add(parsed.cueKey(dataRef), parsed.fetch(input)).build();
    }
}

package io.remold.kinitiras.template;

import io.remold.kinitiras.PolicyEvaluationException;
import io.remold.kinitiras.PolicyInput;
import io.remold.kinitiras.ValueSources;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cases of {@code template-cases.json} (kinitiras's template tests and examples) and {@code
 * template-random-cases.json}, with the results kinitiras's own renderer and cuelang.org/go give (see each file's
 * {@code about}).
 */
class TemplateCasesTest {
    static final String OVERRIDE_FIELD = "spec.overrideRules[0].overriders.template";
    static final String VALIDATE_FIELD = "spec.validateRules[0].template";

    @TestFactory
    Stream<DynamicTest> kinitirasTestsAndExamples() throws Exception {
        return cases("template-cases.json");
    }

    @TestFactory
    Stream<DynamicTest> randomTemplates() throws Exception {
        return cases("template-random-cases.json");
    }

    private static Stream<DynamicTest> cases(String file) throws Exception {
        return corpus(file).stream().map(c -> DynamicTest.dynamicTest(c.getString("id") + " (" + c.getString("go")
                + ")", () -> run(c)));
    }

    /** The cases of one corpus file. */
    static List<JsonObject> corpus(String file) throws Exception {
        try (InputStream in = TemplateCasesTest.class.getResourceAsStream(file);
             JsonReader reader = Json.createReader(in)) {
            List<JsonObject> cases = reader.readObject().getJsonArray("cases").getValuesAs(JsonObject.class);
            assertTrue(cases.size() > 100, "the corpus is read whole");
            return cases;
        }
    }

    /** The request of a case, its lookups answered by the case. */
    static PolicyInput input(JsonObject c) {
        return new PolicyInput(c.getString("operation"), c.get("object"), c.getOrDefault("oldObject", JsonValue.NULL),
                new CaseSources(c));
    }

    private static void run(JsonObject c) throws PolicyEvaluationException {
        JsonObject expect = c.getJsonObject("expect");
        boolean override = c.getString("kind").equals("override");
        JsonObject template = c.getJsonObject("template");
        if (expect.containsKey("refused")) {
            InvalidTemplateException e = assertThrows(InvalidTemplateException.class, () -> {
                if (override) {
                    OverrideTemplate.parse(template, OVERRIDE_FIELD);
                } else {
                    ValidateTemplate.parse(template, VALIDATE_FIELD);
                }
            });
            assertEquals(expect.getString("refused"), e.field(), e.getMessage());
            return;
        }
        PolicyInput input = input(c);
        if (expect.containsKey("error")) {
            assertThrows(PolicyEvaluationException.class, () -> {
                if (override) {
                    OverrideTemplate.parse(template, OVERRIDE_FIELD).patches(input);
                } else {
                    ValidateTemplate.parse(template, VALIDATE_FIELD).refusal(input);
                }
            });
        } else if (override) {
            List<JsonObject> patches = OverrideTemplate.parse(template, OVERRIDE_FIELD).patches(input);
            assertEquals(canonical(expect.getJsonArray("patches")),
                    canonical(Json.createArrayBuilder(patches).build()));
        } else {
            Optional<String> refusal = ValidateTemplate.parse(template, VALIDATE_FIELD).refusal(input);
            JsonValue expected = expect.get("refusal");
            assertEquals(expected.getValueType() == JsonValue.ValueType.NULL ? Optional.empty()
                    : Optional.of(((JsonString) expected).getString()), refusal);
        }
    }

    /** JSON text with sorted keys and numbers by value, so equal JSON compares equal. */
    static String canonical(JsonValue value) {
        return switch (value.getValueType()) {
            case OBJECT -> new TreeMap<>(value.asJsonObject()).entrySet().stream()
                    .map(e -> Json.createValue(e.getKey()) + ":" + canonical(e.getValue()))
                    .collect(Collectors.joining(",\n", "{", "}"));
            case ARRAY -> ((JsonArray) value).stream().map(TemplateCasesTest::canonical)
                    .collect(Collectors.joining(",\n", "[", "]"));
            case NUMBER -> ((JsonNumber) value).bigDecimalValue().stripTrailingZeros().toPlainString();
            default -> value.toString();
        };
    }

    /** Answers a case's k8s and owner lookups with its {@code kube} value, its http lookups with its {@code http}. */
    record CaseSources(JsonObject c) implements ValueSources {
        @Override
        public JsonValue kube(JsonObject reference) {
            return c.getOrDefault("kube", JsonValue.NULL);
        }

        @Override
        public JsonValue http(JsonObject reference) throws PolicyEvaluationException {
            if (!c.containsKey("http")) {
                throw new PolicyEvaluationException("no http answer in this case");
            }
            return c.get("http");
        }
    }
}

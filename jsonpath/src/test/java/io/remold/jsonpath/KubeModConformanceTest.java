package io.remold.jsonpath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/** Runs the {@code jsonpath} category of KubeMod's conformance corpus (shared/conformance/kubemod/cases.yaml). */
class KubeModConformanceTest {
    /** Deliberate differences, each explained under "JSONPath" in docs/compatibility.md. */
    static final Set<String> KNOWN_DEVIATIONS = Set.of(
            "jsonpath-04-negativ-select-array",
            "jsonpath-06-simple-select-out-of-bounds",
            // JSON object literals with #/#N keys (languages jsonpath-placeholder, gval-full+jsonpath-placeholder)
            "placeholder-01-constant", "placeholder-02-root", "placeholder-03-range-array",
            "placeholder-04-range-object", "placeholder-05-range-multi-match", "placeholder-06-range-all",
            "placeholder-07-range-all-even", "placeholder-08-range-all-even-reverse",
            "placeholder-09-union-wildcard-array-first", "placeholder-10-union-wildcard-array-second",
            "placeholder-11-union-wildcard-object-first", "placeholder-12-union-wildcard-object-second",
            "placeholder-13-union-bracket-wildcard-object-first", "placeholder-14-union-bracket-wildcard-object-second",
            "placeholder-15-mapper", "placeholder-16-mapper-union", "placeholder-17-mapper-filter",
            "placeholder-18-brackets", "example-04-example-gval");

    @Test
    void jsonpathCategory() throws IOException {
        Path cases = Path.of(System.getProperty("remold.shared.dir", "../../shared"), "conformance/kubemod/cases.yaml");
        Map<String, Object> corpus;
        try (Reader reader = Files.newBufferedReader(cases)) {
            corpus = new Yaml().load(reader);
        }
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> jsonpathCases = (List<Map<String, Object>>) corpus.get("jsonpath");
        List<String> failures = new ArrayList<>();
        List<String> unexpectedPasses = new ArrayList<>();
        int passed = 0;
        for (Map<String, Object> c : jsonpathCases) {
            String id = (String) c.get("id");
            String outcome = run(c);
            if (outcome == null) {
                passed++;
                if (KNOWN_DEVIATIONS.contains(id)) {
                    unexpectedPasses.add(id);
                }
            } else if (!KNOWN_DEVIATIONS.contains(id)) {
                failures.add(id + " [" + c.get("expression") + "]: " + outcome);
            }
        }
        System.out.println("jsonpath conformance: " + passed + "/" + jsonpathCases.size() + " passed ("
                + KNOWN_DEVIATIONS.size() + " known deviations)");
        failures.forEach(failure -> System.out.println("  FAILED " + failure));
        assertEquals(List.of(), failures, "conformance failures");
        assertEquals(List.of(), unexpectedPasses, "known deviations that now pass: remove them from the list");
        assertTrue(passed > 0);
    }

    /** Null when the case passes, otherwise what went wrong. */
    @SuppressWarnings("unchecked")
    private static String run(Map<String, Object> c) {
        String expression = (String) c.get("expression");
        Map<String, Object> expect = (Map<String, Object>) c.get("expect");
        JsonPath path;
        try {
            path = JsonPath.compile(expression);
        } catch (JsonPathSyntaxException e) {
            return Boolean.TRUE.equals(expect.get("parse_error")) ? null : "syntax error: " + e.getMessage();
        }
        if (Boolean.TRUE.equals(expect.get("parse_error"))) {
            return "compiled, expected a syntax error";
        }
        JsonValue document = Values.PROVIDER.createReader(new StringReader((String) c.get("input_json"))).readValue();
        Optional<JsonValue> result;
        try {
            result = path.evaluate(document);
        } catch (JsonPathEvaluationException e) {
            return Boolean.TRUE.equals(expect.get("error")) ? null : "evaluation error: " + e.getMessage();
        }
        if (Boolean.TRUE.equals(expect.get("error"))) {
            return "evaluated to " + result.map(Object::toString).orElse("undefined") + ", expected an error";
        }
        if (Boolean.TRUE.equals(expect.get("undefined"))) {
            return result.isEmpty() ? null : "evaluated to " + result.get() + ", expected undefined";
        }
        JsonValue expected = toJson(expect.get("value"));
        if (result.isEmpty()) {
            return "undefined, expected " + expected;
        }
        boolean equal = Boolean.TRUE.equals(expect.get("unordered"))
                ? sameMultiset((JsonArray) expected, result.get())
                : Values.deepEquals(expected, result.get());
        return equal ? null : "evaluated to " + result.get() + ", expected " + expected;
    }

    private static boolean sameMultiset(JsonArray expected, JsonValue actual) {
        if (!(actual instanceof JsonArray remaining) || remaining.size() != expected.size()) {
            return false;
        }
        List<JsonValue> unmatched = new ArrayList<>(remaining);
        for (JsonValue value : expected) {
            if (!unmatched.removeIf(new java.util.function.Predicate<>() {
                boolean removed;

                @Override
                public boolean test(JsonValue candidate) {
                    if (!removed && Values.deepEquals(value, candidate)) {
                        removed = true;
                        return true;
                    }
                    return false;
                }
            })) {
                return false;
            }
        }
        return true;
    }

    /** SnakeYAML's Java objects as JSON. */
    static JsonValue toJson(Object yaml) {
        return switch (yaml) {
            case null -> JsonValue.NULL;
            case Map<?, ?> map -> {
                JsonObjectBuilder object = Values.PROVIDER.createObjectBuilder();
                map.forEach((key, value) -> object.add(String.valueOf(key), toJson(value)));
                yield object.build();
            }
            case List<?> list -> {
                JsonArrayBuilder array = Values.PROVIDER.createArrayBuilder();
                list.forEach(item -> array.add(toJson(item)));
                yield array.build();
            }
            case Boolean b -> b ? JsonValue.TRUE : JsonValue.FALSE;
            case Number n -> Values.number(new BigDecimal(n.toString()));
            default -> Values.PROVIDER.createValue(yaml.toString());
        };
    }
}

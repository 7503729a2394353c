package io.remold.kinitiras;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.remold.api.YamlJson;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checks the shape of the kinitiras conformance files (src/test/resources/{conformance,examples}, written by
 * benchmarks/kinitiras/compare.sh, format in benchmarks/kinitiras/README.md), so a bad regeneration fails the
 * build. It does not run Remold against them.
 */
class ConformanceFilesTest {
    static final Path RESOURCES = Path.of("src/test/resources");
    static final Set<String> OPERATIONS = Set.of("CREATE", "UPDATE", "DELETE");

    @Test
    void everyCaseFileHasItsInputAndKinitirasAnswer() throws IOException {
        List<Path> files = caseFiles();
        assertTrue(files.size() >= 116, "case files: " + files.size());
        List<String> problems = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (Path file : files) {
            JsonObject c = YamlJson.parse(Files.readString(file), file.toString()).getFirst().asJsonObject();
            String where = RESOURCES.relativize(file) + ": ";
            String id = c.getString("id", "");
            if (id.isEmpty() || !ids.add(id)) {
                problems.add(where + "missing or repeated id " + id);
            }
            problems.addAll(inputProblems(c, file).stream().map(p -> where + p).toList());
            problems.addAll(expectedProblems(c).stream().map(p -> where + p).toList());
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void everyExampleHasOneEvalGolden() throws IOException {
        List<String> problems = new ArrayList<>();
        int examples = 0;
        try (Stream<Path> dirs = Files.list(RESOURCES.resolve("examples"))) {
            for (Path dir : dirs.sorted().toList()) {
                examples++;
                long goldens = Stream.of("expected.yaml", "rejected.txt", "policy-refused.txt")
                        .filter(name -> Files.isRegularFile(dir.resolve(name))).count();
                JsonObject c = YamlJson.parse(Files.readString(dir.resolve("case.yaml")), dir.toString()).getFirst()
                        .asJsonObject();
                JsonObject expected = c.getJsonObject("expected");
                boolean refused = expected.getJsonArray("policies").stream()
                        .anyMatch(p -> !p.asJsonObject().getBoolean("admitted"))
                        || !expected.getJsonObject("mutate").getBoolean("allowed")
                        || !expected.getJsonObject("validate").getBoolean("allowed");
                boolean allowedDelete = !refused && c.getString("operation").equals("DELETE");
                if (goldens != (allowedDelete ? 0 : 1)) {
                    problems.add(dir.getFileName() + ": " + goldens + " goldens");
                }
                List<String> args = Files.readAllLines(dir.resolve("eval.args"));
                for (int i = 1; i < args.size(); i += 2) {
                    String file = args.get(i).substring(args.get(i).lastIndexOf('=') + 1);
                    if (!args.get(i - 1).equals("--operation") && !Files.isRegularFile(dir.resolve(file))) {
                        problems.add(dir.getFileName() + ": eval.args names a missing " + file);
                    }
                }
            }
        }
        assertEquals(12, examples);
        assertEquals(List.of(), problems);
    }

    @ParameterizedTest
    @ValueSource(strings = {"differential", "differential-newest"})
    void differentialSetPairsEveryCaseWithAnAnswer(String set) throws IOException {
        Path dir = RESOURCES.resolve("conformance").resolve(set);
        List<JsonObject> cases = jsonLines(dir.resolve("cases.jsonl"));
        List<JsonObject> answers = jsonLines(dir.resolve("expected.jsonl"));
        assertEquals(300, cases.size());
        assertEquals(cases.stream().map(c -> c.getString("id")).toList(),
                answers.stream().map(a -> a.getString("id")).toList());
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            JsonObject c = cases.get(i);
            if (!OPERATIONS.contains(c.getString("operation")) || c.getJsonArray("policies").isEmpty()) {
                problems.add(c.getString("id") + ": bad input");
            }
            problems.addAll(answerProblems(answers.get(i), c.getJsonArray("policies").size()).stream()
                    .map(p -> c.getString("id") + ": " + p).toList());
        }
        assertEquals(List.of(), problems);
    }

    static List<String> inputProblems(JsonObject c, Path file) {
        List<String> problems = new ArrayList<>();
        String op = c.getString("operation", "");
        if (!OPERATIONS.contains(op)) {
            problems.add("operation " + op);
        }
        if (!op.equals("DELETE") && !c.containsKey("object")) {
            problems.add("no object for " + op);
        }
        if (!op.equals("CREATE") && !c.containsKey("oldObject")) {
            problems.add("no oldObject for " + op);
        }
        if (!c.containsKey("source")) {
            problems.add("no source");
        }
        for (JsonValue name : c.containsKey("policyFiles") ? c.getJsonArray("policyFiles") : List.<JsonValue>of()) {
            if (!Files.isRegularFile(file.resolveSibling(((JsonString) name).getString()))) {
                problems.add("missing policy file " + name);
            }
        }
        if (policyCount(c) == 0 && !isPolicy(c.getJsonObject(op.equals("DELETE") ? "oldObject" : "object"))) {
            problems.add("no policies");
        }
        return problems;
    }

    static List<String> expectedProblems(JsonObject c) {
        JsonObject expected = c.getJsonObject("expected");
        if (expected == null) {
            return List.of("no expected part");
        }
        List<String> problems = new ArrayList<>(answerProblems(expected, policyCount(c)));
        if (c.containsKey("goExpected") != expected.containsKey("goAgrees")) {
            problems.add("goAgrees must be there exactly when goExpected is");
        }
        return problems;
    }

    static List<String> answerProblems(JsonObject answer, int policies) {
        List<String> problems = new ArrayList<>();
        if (answer.getJsonArray("policies").size() != policies) {
            problems.add("answers for " + answer.getJsonArray("policies").size() + " of " + policies + " policies");
        }
        for (String webhook : List.of("mutate", "validate")) {
            JsonObject a = answer.getJsonObject(webhook);
            if (a == null || !a.containsKey("allowed")) {
                problems.add("no " + webhook + " answer");
            }
        }
        if (!answer.containsKey("orderSensitive")) {
            problems.add("no orderSensitive");
        }
        return problems;
    }

    static int policyCount(JsonObject c) {
        return (c.containsKey("policies") ? c.getJsonArray("policies").size() : 0)
                + (c.containsKey("policyFiles") ? c.getJsonArray("policyFiles").size() : 0);
    }

    static boolean isPolicy(JsonObject obj) {
        return obj != null && obj.getString("apiVersion", "").startsWith("policy.kcloudlabs.io/");
    }

    static List<Path> caseFiles() throws IOException {
        try (Stream<Path> walk = Stream.concat(Files.walk(RESOURCES.resolve("conformance")),
                Files.walk(RESOURCES.resolve("examples")))) {
            return walk.filter(p -> p.getFileName().toString().endsWith("case.yaml")).sorted().toList();
        }
    }

    static List<JsonObject> jsonLines(Path file) throws IOException {
        List<JsonObject> out = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            try (JsonReader reader = Json.createReader(new StringReader(line))) {
                out.add(reader.readObject());
            }
        }
        return out;
    }
}

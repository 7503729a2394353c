package io.remold.engine;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.ModRules;
import io.remold.api.YamlJson;
import io.remold.json.JsonTree;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Runs KubeMod's own test corpus ({@code conformance/kubemod/cases.yaml} under {@code remold.shared.dir}) against
 * the engine: the match, patch, reject, path_template, webhook and store categories. Every failure must be a documented
 * deviation (docs/compatibility.md, section Engine); a listed deviation that starts passing fails too, so the list
 * stays true.
 */
class KubeModConformanceTest {
    private static final String SYSTEM_NAMESPACE = "kubemod-system";
    private static final String NAMESPACE = "my-namespace";

    /** Case id -> why Remold differs. Each entry is in docs/compatibility.md. */
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    private static Path corpus;
    private static JsonObject cases;

    @BeforeAll
    static void load() throws IOException {
        corpus = Path.of(System.getProperty("remold.shared.dir", "../../shared"), "conformance", "kubemod");
        String text = Files.readString(corpus.resolve("cases.yaml"));
        cases = (JsonObject) YamlJson.parse(text, "cases.yaml").getFirst();
    }

    @Test
    void match() {
        run("match", c -> {
            ModRule rule = rules(c).getFirst();
            CompiledRule compiled = CompiledRule.compile(rule);
            JsonValue input = resource(c.getString("input"));
            boolean matched = compiled.match.stream().allMatch(m -> m.failure(input, true) == null);
            return check(c.getJsonObject("expect").getBoolean("match"), matched);
        });
    }

    @Test
    void patch() {
        run("patch", c -> {
            Engine engine = engine(rules(c));
            var request = new AdmissionRequest(AdmissionOperation.valueOf(c.getString("operation")),
                    c.getString("namespace"), resource(c.getString("input")), null, null, null, false);
            return checkMutation(c.getJsonObject("expect"), engine.mutate(request));
        });
    }

    @Test
    void reject() {
        run("reject", c -> {
            List<ModRule> rules = rules(c);
            JsonObject expect = c.getJsonObject("expect");
            if (expect.containsKey("rule_load_error")) {
                boolean refused = rules.stream().anyMatch(r -> !Engine.compile(r).ok());
                return refused ? null : "rule compiled but KubeMod refuses it: " + expect.getString("rule_load_error");
            }
            var request = new AdmissionRequest(AdmissionOperation.valueOf(c.getString("operation")),
                    c.getString("namespace"), resource(c.getString("input")), null, null, null, false);
            Decision decision = engine(rules).validate(request);
            List<String> expected = expect.getJsonArray("rejections").getValuesAs(JsonString::getString);
            List<String> actual = decision.rejections().stream().map(Rejection::toString).toList();
            return check(expected, actual);
        });
    }

    @Test
    void pathTemplate() {
        Pattern key = Pattern.compile("\\[\"([^\"]*)\"]");
        run("path_template", c -> {
            var captures = new ArrayList<Object>();
            Matcher m = key.matcher(c.getString("select_key"));
            while (m.find()) {
                captures.add(m.group(1));
            }
            String path = PathTemplate.parse(c.getString("path_template")).render(captures);
            return check(c.getString("expected_path"), path);
        });
    }

    @Test
    void webhook() {
        run("webhook", c -> {
            JsonObject admission = c.getJsonObject("admission_request");
            JsonObject node = c.getJsonObject("cluster_state").getJsonArray("nodes").getJsonObject(0);
            JsonValue nodeRef = Json.PROVIDER.createObjectBuilder()
                    .add("apiVersion", "v1").add("kind", "Node")
                    .add("metadata", Json.PROVIDER.createObjectBuilder()
                            .add("name", node.getString("name")).add("labels", node.getJsonObject("labels")))
                    .build();
            JsonValue namespaceRef = Json.PROVIDER.createObjectBuilder()
                    .add("apiVersion", "v1").add("kind", "Namespace").build();
            var request = new AdmissionRequest(AdmissionOperation.valueOf(admission.getString("operation")),
                    admission.getString("namespace"), resource(admission.getString("object")), null,
                    namespaceRef, nodeRef, false);
            return checkMutation(c.getJsonObject("expect"), engine(rules(c)).mutate(request));
        });
    }

    /** A patch or webhook case: no rule failed, the sorted patch and the resulting object are KubeMod's. */
    private static String checkMutation(JsonObject expect, Decision decision) throws IOException {
        String problem = errors(decision);
        if (problem == null) {
            problem = checkPatch(expect.getJsonArray("patch_sorted"), decision.patch());
        }
        if (problem == null && !Json.same(json(corpus.resolve(expect.getString("output"))), decision.result())) {
            problem = "output differs: " + JsonTree.goText(decision.result());
        }
        return problem;
    }

    /** KubeMod's store keeps one rule per namespace/name: later rules replace earlier ones (the Put half). */
    @Test
    void store() {
        run("store", c -> {
            var builder = Engine.builder();
            String[] namespaces = {"ns-a", "ns-b", "ns-c"};
            String[] names = {"r1", "r2", "r3", "r4", "r5"};
            for (int i = 0; i < 150; i++) {
                builder.rule(Rules.kubemod(namespaces[i % 3], names[i % 5], "{type: Reject, match: "
                        + JsonTree.goText(c.getJsonObject("modrule_spec").getJsonArray("match")) + "}"));
            }
            Engine engine = builder.build();
            return check(c.getJsonObject("expect").getInt("total_rules_after_puts"), engine.ruleCount());
        });
    }

    interface Case {
        /** Null when the case passes, otherwise what differs. */
        String run(JsonObject testCase) throws Exception;
    }

    private static void run(String category, Case body) {
        var failures = new TreeMap<String, String>();
        var unexpectedPasses = new ArrayList<String>();
        JsonArray list = cases.getJsonArray(category);
        int passed = 0;
        for (JsonValue v : list) {
            JsonObject c = (JsonObject) v;
            String id = c.getString("id");
            String problem;
            try {
                problem = body.run(c);
            } catch (Exception | AssertionError e) {
                problem = "threw " + e;
            }
            if (problem == null) {
                passed++;
                if (KNOWN_DEVIATIONS.containsKey(id)) {
                    unexpectedPasses.add(id);
                }
            } else if (!KNOWN_DEVIATIONS.containsKey(id)) {
                failures.put(id, problem);
            }
        }
        System.out.println("kubemod conformance " + category + ": " + passed + "/" + list.size() + " passed");
        failures.forEach((id, problem) -> System.out.println("  FAIL " + id + ": " + problem));
        assertEquals(Map.of(), failures, category + ": failures that are not documented deviations");
        assertEquals(List.of(), unexpectedPasses, category + ": documented deviations that now pass");
    }

    /** The rules of a case, stored in my-namespace unless they name a namespace (the Go harness does the same). */
    private static List<ModRule> rules(JsonObject c) {
        var out = new ArrayList<ModRule>();
        JsonValue files = c.get("rules") != null ? c.get("rules") : Json.PROVIDER.createArrayBuilder()
                .add(c.getString("rule")).build();
        for (JsonValue file : (JsonArray) files) {
            for (ModRule r : ModRules.read(corpus.resolve(((JsonString) file).getString()))) {
                out.add(r.namespace() != null ? r : new ModRule(r.apiVersion(), NAMESPACE, r.name(), r.uid(),
                        r.resourceVersion(), r.generation(), r.spec()));
            }
        }
        return out;
    }

    private static Engine engine(List<ModRule> rules) {
        Engine engine = Engine.builder().kubemodSystemNamespace(SYSTEM_NAMESPACE).rules(rules).build();
        if (!engine.problems().isEmpty()) {
            throw new AssertionError("rules did not compile: " + engine.problems());
        }
        return engine;
    }

    private static String errors(Decision decision) {
        var errors = decision.outcomes().stream().filter(o -> o.error() != null)
                .map(o -> o.rule() + ": " + o.error()).toList();
        return errors.isEmpty() ? null : "rule errors " + errors;
    }

    /** Patches compare as multisets (KubeMod's order is not stable); values compare numerically. */
    private static String checkPatch(JsonArray expected, JsonArray actual) {
        var left = new ArrayList<>(actual);
        for (JsonValue op : expected) {
            int at = indexOfSame(left, op);
            if (at < 0) {
                return "patch lacks " + op + "; got " + actual;
            }
            left.remove(at);
        }
        return left.isEmpty() ? null : "patch has extra " + left + "; got " + actual;
    }

    private static int indexOfSame(List<JsonValue> values, JsonValue wanted) {
        for (int i = 0; i < values.size(); i++) {
            if (Json.same(values.get(i), wanted)) {
                return i;
            }
        }
        return -1;
    }

    private static String check(Object expected, Object actual) {
        return expected.equals(actual) ? null : "expected " + expected + " but got " + actual;
    }

    private static JsonValue resource(String relative) throws IOException {
        return json(corpus.resolve(relative));
    }

    private static JsonValue json(Path file) throws IOException {
        try (var reader = Json.PROVIDER.createReader(new StringReader(Files.readString(file)))) {
            return reader.readValue();
        }
    }
}

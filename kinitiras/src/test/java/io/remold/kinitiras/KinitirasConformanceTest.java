package io.remold.kinitiras;

import io.remold.api.AdmissionOperation;
import io.remold.api.AllowedUrls;
import io.remold.api.InvalidFieldException;
import io.remold.api.YamlJson;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.ReferenceQuery;
import io.remold.engine.ReferenceResolver;
import io.remold.engine.ReferenceScope;
import io.remold.engine.Rejection;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kinitiras's conformance corpus (src/test/resources/conformance, README there) run through Remold: each policy read
 * by the family, the admitted ones in one engine per case (its http references answered from the case's canned
 * answers, as {@code eval --http} answers them), the request mutated then validated as the API server calls the
 * webhooks, and the answer compared with kinitiras's. Every case passes or is listed, with the reason, in
 * {@code remold-differences.yaml}; a listed case that passes fails the test, so the list stays true.
 */
class KinitirasConformanceTest {
    private static final Path CONFORMANCE = ConformanceFilesTest.RESOURCES.resolve("conformance");
    private static final KinitirasFamily FAMILY = new KinitirasFamily();
    /** Case key ({@code <set>/<id>}) → why Remold answers otherwise, naming the docs/compatibility.md entry. */
    private static final Map<String, String> DIFFERENCES = differences();
    private static final String DELETE_UNCHANGED = "A DELETE never runs the override policies";
    private static final String OWN_NAMESPACE = "An OverridePolicy changes only objects of its own namespace";
    private static final KinitirasOptions CROSS_NAMESPACE = new KinitirasOptions(true, false);
    private static final List<String> SETS = List.of("v0.4.5", "newest", "differential", "differential-newest",
            "examples");

    /** One case: its input and kinitiras's answer ({@code expected}), keyed by its set and id. */
    record Case(String key, JsonObject input, JsonObject expected) {
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"v0.4.5", "newest", "differential", "differential-newest", "examples"})
    void remoldAnswersAsKinitirasOrAsTheDifferencesSay(String set) throws IOException {
        List<Case> cases = cases(set);
        var failures = new TreeMap<String, String>();
        var listedButPassing = new ArrayList<String>();
        int passed = 0;
        for (Case c : cases) {
            String problem;
            try {
                problem = problem(c.input(), c.expected(), KinitirasOptions.DEFAULTS);
            } catch (RuntimeException e) {
                problem = "threw " + e;
            }
            if (problem == null) {
                passed++;
                if (DIFFERENCES.containsKey(c.key())) {
                    listedButPassing.add(c.key());
                }
            } else if (!DIFFERENCES.containsKey(c.key())) {
                failures.put(c.key(), problem);
            } else if (!shows(DIFFERENCES.get(c.key()), c.input(), problem)) {
                failures.put(c.key(), "listed as \"" + DIFFERENCES.get(c.key()) + "\", but " + problem);
            }
        }
        System.out.println("kinitiras conformance " + set + ": " + passed + "/" + cases.size() + " passed, "
                + (cases.size() - passed - failures.size()) + " listed differences");
        failures.forEach((key, problem) -> System.out.println("  FAIL " + key + ": " + problem));
        assertEquals(Map.of(), failures, set + ": failures that are not listed in remold-differences.yaml");
        assertEquals(List.of(), listedButPassing, set + ": listed differences that now pass");
    }

    @Test
    void everyListedDifferenceIsACaseAndPointsAtTheCompatibilityDoc() throws IOException {
        var keys = new TreeSet<String>();
        for (String set : SETS) {
            cases(set).forEach(c -> keys.add(c.key()));
        }
        String compatibility = Files.readString(Path.of("../docs/compatibility.md")).replaceAll("\\s+", " ");
        var problems = new ArrayList<String>();
        DIFFERENCES.forEach((key, reason) -> {
            if (!keys.contains(key)) {
                problems.add(key + ": no such case");
            }
            if (!reason.startsWith("BUG:") && !compatibility.contains(entry(reason))) {
                problems.add(key + ": docs/compatibility.md has no entry \"" + entry(reason) + "\"");
            }
        });
        assertEquals(List.of(), problems);
    }

    /**
     * Whether the failure is the one the reason says, where it says how it shows: a DELETE that kinitiras refuses in
     * its override policies.
     */
    private static boolean shows(String reason, JsonObject input, String problem) {
        if (reason.startsWith(DELETE_UNCHANGED)) {
            return input.getString("operation").equals("DELETE") && problem.startsWith("Remold allows");
        }
        return true;
    }

    /**
     * The corpus again with {@code --kinitiras-cross-namespace-overrides}: the cases listed because an OverridePolicy
     * changes only its own namespace answer as kinitiras does, and so does every case not listed for another reason,
     * so that the setting is that difference alone and changes nothing else.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"v0.4.5", "newest", "differential", "differential-newest", "examples"})
    void withCrossNamespaceOverridesRemoldAnswersAsKinitirasButForTheOtherListedDifferences(String set)
            throws IOException {
        var problems = new TreeMap<String, String>();
        for (Case c : cases(set)) {
            String reason = DIFFERENCES.getOrDefault(c.key(), OWN_NAMESPACE);
            if (reason.startsWith(OWN_NAMESPACE)) {
                String problem = problem(c.input(), c.expected(), CROSS_NAMESPACE);
                if (problem != null) {
                    problems.put(c.key(), problem);
                }
            }
        }
        assertEquals(Map.of(), problems, set + " with " + CROSS_NAMESPACE);
    }

    @Test
    void someListedCasesAreOtherNamespacesOverridePolicies() {
        assertTrue(DIFFERENCES.values().stream().anyMatch(r -> r.startsWith(OWN_NAMESPACE)),
                "no case listed as " + OWN_NAMESPACE);
    }

    /** The entry a reason names: its text up to the first " (" (the rest says how it shows in the case). */
    private static String entry(String reason) {
        int cut = reason.indexOf(" (");
        return cut < 0 ? reason : reason.substring(0, cut);
    }

    /** Null when Remold, running the policies with {@code options}, answers the case as kinitiras does. */
    private static String problem(JsonObject input, JsonObject expected, KinitirasOptions options) {
        if (!input.containsKey("policies")) {
            return policyAsObject(input, expected);
        }
        List<JsonObject> manifests = input.getJsonArray("policies").getValuesAs(JsonObject.class);
        List<JsonObject> answers = expected.getJsonArray("policies").getValuesAs(JsonObject.class);
        var policies = new TreeMap<String, Policy>();
        var problems = new ArrayList<String>();
        for (int i = 0; i < manifests.size(); i++) {
            String refusal = null;
            try {
                Policy policy = FAMILY.parse(manifests.get(i));
                policies.put(policy.id(), policy);
            } catch (InvalidFieldException e) {
                refusal = e.getMessage();
            }
            JsonObject answer = answers.get(i);
            if ((refusal == null) != answer.getBoolean("admitted")) {
                problems.add("policy " + answer.getString("name") + ": Remold "
                        + (refusal == null ? "admits it" : "refuses it (" + refusal + ")") + ", kinitiras "
                        + (answer.getBoolean("admitted") ? "admits it" : "refuses it (" + answer.getString("error", "")
                        + ")"));
            }
        }
        if (!problems.isEmpty()) {
            return String.join("; ", problems);
        }
        Answer remold = remold(input, policies, options);
        String difference = remold.differenceFrom(Answer.of(expected));
        if (difference != null && expected.getBoolean("orderSensitive")
                && remold.differenceFrom(Answer.of(expected.getJsonObject("reversed"))) == null) {
            return null;
        }
        return difference;
    }

    /**
     * A case whose object is a policy (kinitiras's policy webhooks): Remold's policy webhooks refuse what the family
     * cannot read, and write what kinitiras's writes into an admitted policy ({@link KinitirasFamily#admissionPatch}):
     * each template's {@code renderedCue}, compared by where it is written, not by its text (each webhook writes
     * its own CUE; Remold's is checked by {@code RenderedCueCasesTest}), and a condition's {@code affectMode}.
     */
    private static String policyAsObject(JsonObject input, JsonObject expected) {
        String refusal = null;
        JsonObject admitted = null;
        if (!input.getString("operation").equals("DELETE")) {
            try {
                admitted = named(input.getJsonObject("object"));
                FAMILY.parse(admitted);
                JsonObject old = input.getString("operation").equals("UPDATE")
                        && input.get("oldObject") instanceof JsonObject o ? named(o) : null;
                admitted = (JsonObject) GoJsonPatch.apply(admitted, FAMILY.admissionPatch(admitted, old));
            } catch (InvalidFieldException e) {
                refusal = e.getMessage();
            } catch (PolicyEvaluationException e) {
                return "Remold's admission patch does not apply: " + e.getMessage();
            }
        }
        boolean kinitirasAllows = expected.getJsonObject("mutate").getBoolean("allowed")
                && expected.getJsonObject("validate").getBoolean("allowed");
        if ((refusal == null) != kinitirasAllows) {
            return refusal == null ? "Remold admits the policy, kinitiras refuses it: " + Answer.of(expected).message()
                    : "Remold refuses the policy (" + refusal + "), kinitiras admits it";
        }
        if (admitted != null && refusal == null
                && expected.getJsonObject("mutate").get("object") instanceof JsonObject written) {
            JsonValue kinitiras = renderedMarked(written.get("spec"));
            JsonValue remold = renderedMarked(admitted.get("spec"));
            if (!kinitiras.equals(remold)) {
                return "the admitted policy differs: kinitiras " + kinitiras + ", Remold " + remold;
            }
        }
        return null;
    }

    /** The value with every non-empty {@code renderedCue} text replaced by one marker. */
    private static JsonValue renderedMarked(JsonValue value) {
        if (value instanceof JsonObject object) {
            var marked = Json.createObjectBuilder();
            object.forEach((key, member) -> marked.add(key, key.equals("renderedCue")
                    && member instanceof JsonString text && !text.getString().isEmpty()
                    ? Json.createValue("<rendered>") : renderedMarked(member)));
            return marked.build();
        }
        if (value instanceof JsonArray list) {
            var marked = Json.createArrayBuilder();
            list.forEach(element -> marked.add(renderedMarked(element)));
            return marked.build();
        }
        return value;
    }

    /**
     * The policy as the API server stores it: the Go tests' policies have no metadata, and the API server gives every
     * object a name, and a namespaced one the request's namespace.
     */
    private static JsonObject named(JsonObject policy) {
        JsonObject metadata = policy.containsKey("metadata") ? policy.getJsonObject("metadata")
                : JsonValue.EMPTY_JSON_OBJECT;
        var named = Json.createObjectBuilder(metadata);
        if (!metadata.containsKey("name")) {
            named.add("name", "policy");
        }
        if (!metadata.containsKey("namespace") && policy.getString("kind", "").equals("OverridePolicy")) {
            named.add("namespace", "default");
        }
        return Json.createObjectBuilder(policy).add("metadata", named).build();
    }

    /** The request through an engine of the admitted policies: mutated, then the result validated. */
    private static Answer remold(JsonObject input, TreeMap<String, Policy> policies, KinitirasOptions options) {
        Engine.Builder builder = engineFor(input);
        new KinitirasFamily(new CannedHttp(input.getOrDefault("http", JsonValue.EMPTY_JSON_OBJECT).asJsonObject()),
                options).compile(policies).stage().ifPresent(builder::stage);
        return answer(input, builder.build());
    }

    /** An engine builder that reads the case's cluster objects. */
    static Engine.Builder engineFor(JsonObject input) {
        return Engine.builder().references(new ClusterObjects(input.containsKey("cluster")
                ? input.getJsonArray("cluster").getValuesAs(JsonObject.class) : List.of()));
    }

    /** The case's request through {@code engine}: mutated, then the result validated. */
    static Answer answer(JsonObject input, Engine engine) {
        AdmissionOperation operation = AdmissionOperation.valueOf(input.getString("operation"));
        JsonValue object = input.getOrDefault("object", JsonValue.NULL);
        JsonValue old = input.getOrDefault("oldObject", JsonValue.NULL);
        String namespace = input.getString("namespace",
                namespaceOf(operation == AdmissionOperation.DELETE ? old : object));
        Decision mutated = engine.mutate(new AdmissionRequest(operation, namespace, object, old, JsonValue.NULL,
                JsonValue.NULL, false));
        if (!mutated.allowed()) {
            return new Answer(false, null, rejections(mutated), true);
        }
        JsonValue result = operation == AdmissionOperation.DELETE ? null : mutated.result();
        Decision validated = engine.validate(new AdmissionRequest(operation, namespace,
                result == null ? JsonValue.NULL : result, old, JsonValue.NULL, JsonValue.NULL, false));
        return new Answer(validated.allowed(), result, rejections(validated), false);
    }

    private static String rejections(Decision decision) {
        return decision.rejections().stream().map(Rejection::toString).collect(Collectors.joining(", "));
    }

    /**
     * An answer to a request: allowed or not, the object after mutation (null when there is none to compare: a
     * DELETE, a refusal), the refusal's message, and whether the mutating webhook gave it (an error, where kinitiras
     * answers 500) rather than a validation.
     */
    record Answer(boolean allowed, JsonValue object, String message, boolean failed) {
        static Answer of(JsonObject answer) {
            JsonObject mutate = answer.getJsonObject("mutate");
            JsonObject validate = answer.getJsonObject("validate");
            if (!mutate.getBoolean("allowed")) {
                return new Answer(false, null, mutate.getString("message", ""), true);
            }
            return new Answer(validate.getBoolean("allowed"), mutate.get("object"), validate.getString("message", ""),
                    validate.getInt("code", 200) == 500);
        }

        /**
         * Null when this (Remold's) answer is kinitiras's: the same decision, the same object after mutation, and a
         * validation's refusal with the policy's reason; otherwise what differs.
         */
        String differenceFrom(Answer kinitiras) {
            if (allowed != kinitiras.allowed) {
                return allowed ? "Remold allows, kinitiras refuses: " + kinitiras.message
                        : "Remold refuses (" + message + "), kinitiras allows";
            }
            if (allowed && object != null && kinitiras.object != null && !object.equals(kinitiras.object)) {
                return "objects differ, from kinitiras's to Remold's: " + Engine.diff(kinitiras.object, object);
            }
            if (!allowed && !failed && !kinitiras.failed && !message.endsWith(": \"" + kinitiras.message + "\"")) {
                return "refusals differ: Remold " + message + ", kinitiras \"" + kinitiras.message + "\"";
            }
            return null;
        }
    }

    /**
     * The case's {@code http} answers, as kinitiras's harness gives them: by the URL kinitiras calls (its params in
     * it), or by that URL without its query; every URL is allowed, as in {@code eval} without {@code --allow-http-ref}.
     */
    record CannedHttp(JsonObject answers) implements HttpAnswers {
        @Override
        public AllowedUrls allowed() {
            return AllowedUrls.ANY;
        }

        @Override
        public JsonValue answer(HttpCall call, long deadlineNanos) throws PolicyEvaluationException {
            String url = call.url().toString();
            int query = url.indexOf('?');
            JsonValue answer = answers.containsKey(url) ? answers.get(url)
                    : query >= 0 ? answers.get(url.substring(0, query)) : null;
            if (answer == null) {
                throw new PolicyEvaluationException("harness: no canned response for " + url);
            }
            return answer;
        }
    }

    /** The case's {@code cluster} objects, as the API server would list them, answering {@code k8s} references. */
    record ClusterObjects(List<JsonObject> objects) implements ReferenceResolver {
        @Override
        public Resolution resolve(ReferenceQuery query) {
            Stream<JsonObject> found = objects.stream()
                    .filter(o -> o.getString("apiVersion", "").equals(query.apiVersion())
                            && o.getString("kind", "").equals(query.kind())
                            && (query.namespace() == null || query.namespace().isEmpty()
                            || namespaceOf(o).equals(query.namespace())));
            if (query.name() != null) {
                return new Resolution(found.filter(o -> o.getJsonObject("metadata").getString("name", "")
                        .equals(query.name())).findFirst().orElse(null), "the case's cluster");
            }
            return new Resolution(ReferenceScope.byName(found.filter(o -> query.selector().matches(labels(o)))),
                    "the case's cluster");
        }

        private static Map<String, String> labels(JsonObject object) {
            var labels = new TreeMap<String, String>();
            if (object.getJsonObject("metadata").get("labels") instanceof JsonObject map) {
                map.forEach((k, v) -> labels.put(k, v instanceof JsonString s ? s.getString() : v.toString()));
            }
            return labels;
        }
    }

    private static String namespaceOf(JsonValue object) {
        return object instanceof JsonObject o && o.get("metadata") instanceof JsonObject metadata
                ? metadata.getString("namespace", "") : "";
    }

    /** A set's cases, each keyed {@code <set>/<id>} (an example's id starts with its set already). */
    static List<Case> cases(String set) throws IOException {
        Path dir = set.equals("examples") ? ConformanceFilesTest.RESOURCES.resolve(set) : CONFORMANCE.resolve(set);
        var out = new ArrayList<Case>();
        if (set.startsWith("differential")) {
            List<JsonObject> inputs = ConformanceFilesTest.jsonLines(dir.resolve("cases.jsonl"));
            List<JsonObject> answers = ConformanceFilesTest.jsonLines(dir.resolve("expected.jsonl"));
            for (int i = 0; i < inputs.size(); i++) {
                out.add(new Case(set + "/" + inputs.get(i).getString("id"), inputs.get(i), answers.get(i)));
            }
            return out;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path file : walk.filter(p -> p.getFileName().toString().endsWith("case.yaml")).sorted().toList()) {
                JsonObject c = withPolicyFiles(
                        YamlJson.parse(Files.readString(file), file.toString()).getFirst().asJsonObject(), file);
                String id = c.getString("id");
                out.add(new Case(id.startsWith(set + "/") ? id : set + "/" + id, c, c.getJsonObject("expected")));
            }
        }
        return out;
    }

    /** An example's case names its policy files ({@code policyFiles}): the case with them as its {@code policies}. */
    private static JsonObject withPolicyFiles(JsonObject c, Path file) throws IOException {
        if (!c.containsKey("policyFiles")) {
            return c;
        }
        var policies = Json.createArrayBuilder();
        for (JsonString name : c.getJsonArray("policyFiles").getValuesAs(JsonString.class)) {
            Path policy = file.resolveSibling(name.getString());
            policies.add(YamlJson.parse(Files.readString(policy), policy.toString()).getFirst());
        }
        return Json.createObjectBuilder(c).add("policies", policies).build();
    }

    private static Map<String, String> differences() {
        JsonObject listed = Cases.file("/conformance/remold-differences.yaml");
        var out = new TreeMap<String, String>();
        listed.forEach((key, reason) -> out.put(key, ((JsonString) reason).getString()));
        return Map.copyOf(out);
    }
}

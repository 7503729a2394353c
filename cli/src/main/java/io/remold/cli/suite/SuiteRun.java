package io.remold.cli.suite;

import io.remold.api.ModRuleException;
import io.remold.api.YamlJson;
import io.remold.cli.UsageException;
import io.remold.cli.eval.Manifests;
import io.remold.cli.eval.OfflineAdmission;
import io.remold.cli.eval.OfflineRules;
import io.remold.cli.eval.RuleFiles;
import io.remold.rules.RuleSet;
import io.remold.rules.Snapshot;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Runs a suite: each result's resources, one request each, through the rules as {@code eval} decides them
 * ({@link OfflineRules}, {@link OfflineAdmission}: the server's families, limits and mocks), compared with what the
 * result expects. Each result starts from fresh rules (its own mocks, script state as {@code mocks.state} seeds it);
 * its resources are admitted in order, as by one server.
 */
final class SuiteRun {
    private static final JsonProvider JSON = JsonProvider.provider();

    /** One resource of one result: what was expected and what happened; {@code detail} explains a failure. */
    record Row(String suite, String file, String test, String resource, String expected, String actual, boolean passed,
               String reason, String detail) {
    }

    private SuiteRun() {
    }

    /**
     * The rows of {@code suite}, in its order. A rule file that does not load, or a mock file that does not read,
     * is a {@link UsageException} naming the suite file.
     */
    static List<Row> run(Suite suite, PrintStream err) {
        RuleFiles.Loaded loaded;
        try {
            loaded = RuleFiles.load(suite.rules());
        } catch (UsageException | ModRuleException e) {
            throw new UsageException(suite.file() + ": rules: " + e.getMessage());
        }
        var rows = new ArrayList<Row>();
        for (Suite.Case c : suite.cases()) {
            try (var rules = OfflineRules.open(loaded, c.options())) {
                Snapshot snapshot = rules.assembly().assemble(RuleSet.of(loaded.entries()));
                // As eval says it: these rules do not run.
                snapshot.disabled().forEach((key, why) -> err.println("remold test: " + c.origin()
                        + ": the rule from " + key + " is not in force: " + why));
                for (int i = 0; i < c.resources().size(); i++) {
                    rows.add(row(suite, c, i, snapshot));
                }
            } catch (UsageException | ModRuleException e) {
                throw new UsageException(c.origin() + ": " + e.getMessage());
            }
        }
        return List.copyOf(rows);
    }

    private static Row row(Suite suite, Suite.Case c, int index, Snapshot snapshot) {
        Suite.Resource resource = c.resources().get(index);
        String namespace = c.namespace() != null ? c.namespace() : Manifests.namespaceOf(resource.object());
        JsonObject old = c.oldResources() == null ? null : c.oldResources().stream()
                .filter(o -> resource.same(o.object())).findFirst().orElseThrow().object();
        var request = new OfflineAdmission.Request(c.operation(), namespace, resource.object(), old,
                namespaceObject(c, namespace), c.nodeFile() == null ? null
                : Manifests.object("mocks.references.node", c.nodeFile()), c.userName(), false);
        OfflineAdmission.Answer answer = OfflineAdmission.decide(snapshot, request);

        Suite.Expectation expected = c.expected();
        String expectedText = expected.allowed() ? "allowed" : "denied";
        String actualText = answer.allowed() ? "allowed" : "denied";
        String reason;
        String detail = "";
        if (expected.allowed() != answer.allowed()) {
            reason = "expected " + expectedText + ", was " + actualText;
            detail = answer.allowed() ? "the request was admitted" : "refusal: " + answer.rejection();
        } else if (expected.patched() != null && !canonical(answer.result()).equals(canonical(
                expected.patched().get(index).object()))) {
            reason = "object differs";
            detail = UnifiedDiff.of("expected (" + expected.patchedFile() + ")", canonical(
                    expected.patched().get(index).object()), "actual", canonical(answer.result()));
        } else if (expected.message() != null && !(expected.exactMessage()
                ? answer.rejection().equals(expected.message()) : answer.rejection().contains(expected.message()))) {
            reason = "message differs";
            detail = "expected message " + (expected.exactMessage() ? "equal to" : "containing") + ": "
                    + expected.message() + "\nactual message: " + answer.rejection();
        } else if (expected.warnings() != null && !warningsMatch(expected.warnings(), answer.warnings())) {
            reason = "warnings differ";
            detail = "expected warnings (each contained in its own):" + lines(expected.warnings())
                    + "\nactual warnings:" + lines(answer.warnings());
        } else {
            reason = "";
        }
        if (expected.patched() != null) {
            expectedText = "patched";
            actualText = !answer.allowed() ? actualText : reason.equals("object differs") ? "other object" : "patched";
        }
        return new Row(suite.name(), suite.file().toString(), c.name(), resource.id(), expectedText, actualText, reason.isEmpty(), reason,
                detail);
    }

    /** The namespace object rules see as syntheticRefs.namespace: the mocked file, or one made of the labels. */
    private static JsonObject namespaceObject(Suite.Case c, String namespace) {
        if (c.namespaceFile() != null) {
            return Manifests.object("mocks.references.namespace", c.namespaceFile());
        }
        if (c.namespaceLabels() == null) {
            return null;
        }
        var labels = JSON.createObjectBuilder();
        c.namespaceLabels().forEach(labels::add);
        return JSON.createObjectBuilder().add("apiVersion", "v1").add("kind", "Namespace")
                .add("metadata", JSON.createObjectBuilder().add("name", namespace).add("labels", labels)).build();
    }

    private static boolean warningsMatch(List<String> expected, List<String> actual) {
        if (expected.size() != actual.size()) {
            return false;
        }
        for (int i = 0; i < expected.size(); i++) {
            if (!actual.get(i).contains(expected.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static String lines(List<String> items) {
        return items.isEmpty() ? " none" : "\n" + String.join("\n", items.stream().map(w -> "  " + w).toList());
    }

    /** YAML with every mapping's keys sorted: two objects are equal when these texts are, and diff line by line. */
    static String canonical(JsonValue value) {
        return YamlJson.toYaml(sorted(value));
    }

    private static JsonValue sorted(JsonValue value) {
        if (value instanceof JsonObject object) {
            Map<String, JsonValue> keys = new TreeMap<>(object);
            var out = JSON.createObjectBuilder();
            keys.forEach((k, v) -> out.add(k, sorted(v)));
            return out.build();
        }
        if (value instanceof JsonArray array) {
            var out = JSON.createArrayBuilder();
            array.forEach(v -> out.add(sorted(v)));
            return out.build();
        }
        return value;
    }
}

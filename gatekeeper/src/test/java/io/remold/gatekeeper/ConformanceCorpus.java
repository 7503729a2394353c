package io.remold.gatekeeper;

import io.remold.api.YamlJson;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Gatekeeper's own mutation unit tests as data ({@code conformance/gatekeeper/cases.yaml} under
 * {@code remold.shared.dir}). Each category's test runs its cases through {@link #run}: every failure must be a
 * known deviation (listed in docs/compatibility.md, section Gatekeeper), and a known deviation that starts passing
 * fails too, so the list stays true.
 */
public final class ConformanceCorpus {
    /** One case's check: null when Remold behaves as the case requires, else what differs. */
    @FunctionalInterface
    public interface Check {
        String run(JsonObject testCase) throws Exception;
    }

    private static JsonObject corpus;

    private ConformanceCorpus() {
    }

    public static synchronized JsonObject corpus() {
        if (corpus == null) {
            Path file = Path.of(System.getProperty("remold.shared.dir", "../../shared"),
                    "conformance", "gatekeeper", "cases.yaml");
            try {
                corpus = (JsonObject) YamlJson.parse(Files.readString(file), file.toString()).getFirst();
            } catch (IOException e) {
                throw new UncheckedIOException("the Gatekeeper conformance corpus is missing: " + file, e);
            }
        }
        return corpus;
    }

    /** The cases of a category, optionally only those of the given {@code kind}s. */
    public static List<JsonObject> cases(String category, String... kinds) {
        JsonValue list = corpus().get(category);
        var out = new ArrayList<JsonObject>();
        if (list instanceof jakarta.json.JsonArray array) {
            for (JsonValue v : array) {
                JsonObject c = (JsonObject) v;
                if (kinds.length == 0 || List.of(kinds).contains(c.getString("kind", ""))) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    /**
     * Runs {@code check} on every case of {@code category} (of the given kinds, if any) and fails unless exactly the
     * cases in {@code knownDeviations} (id -> why) fail. Prints the pass count.
     */
    public static void run(String category, Map<String, String> knownDeviations, Check check, String... kinds) {
        List<JsonObject> cases = cases(category, kinds);
        if (cases.isEmpty()) {
            fail("no cases in category " + category + " " + List.of(kinds));
        }
        var unexpected = new TreeMap<String, String>();
        int passed = 0;
        for (JsonObject c : cases) {
            String id = c.getString("id");
            String failure;
            try {
                failure = check.run(c);
            } catch (Exception | AssertionError e) {
                failure = "threw " + e;
            }
            if (failure == null) {
                passed++;
                if (knownDeviations.containsKey(id)) {
                    unexpected.put(id, "listed as a deviation (" + knownDeviations.get(id) + ") but passes");
                }
            } else if (!knownDeviations.containsKey(id)) {
                unexpected.put(id, failure);
            }
        }
        System.out.printf("Gatekeeper conformance %s%s: %d of %d cases pass%n", category,
                kinds.length == 0 ? "" : " " + List.of(kinds), passed, cases.size());
        if (!unexpected.isEmpty()) {
            var sb = new StringBuilder(unexpected.size() + " unexpected result(s) in " + category + ":");
            unexpected.forEach((id, why) -> sb.append("\n  ").append(id).append(": ").append(why));
            fail(sb.toString());
        }
    }
}

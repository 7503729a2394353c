package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.ConformanceCorpus;
import io.remold.gatekeeper.path.Location;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.Map;

/** Gatekeeper's {@code pathTests} ({@code path_tests}): Assign mutators with path tests, and their validation. */
class PathTestsConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    @Test
    void mutate() {
        ConformanceCorpus.run("path_tests", KNOWN_DEVIATIONS, Assertions::checkMutator, "mutate");
    }

    @Test
    void validation() {
        ConformanceCorpus.run("path_tests", KNOWN_DEVIATIONS, PathTestsConformanceTest::checkValidation,
                "path_test_validation");
    }

    private static String checkValidation(JsonObject c) {
        JsonObject expect = c.getJsonObject("expect");
        try {
            PathTests.parse(c.getJsonArray("pathTests"), Location.parse(c.getString("location")));
        } catch (InvalidMutatorException e) {
            if (expect.getBoolean("valid")) {
                return "refused: " + e.getMessage();
            }
            return e.reason().contains(expect.getString("error_contains")) ? null : "wrong reason: " + e.getMessage();
        }
        return expect.getBoolean("valid") ? null : "accepted";
    }
}

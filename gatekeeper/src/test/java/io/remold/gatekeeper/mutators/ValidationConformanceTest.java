package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.ConformanceCorpus;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.Map;

/**
 * What Gatekeeper refuses or accepts when it builds a mutator ({@code mutator}), AssignImage's parameters ({@code
 * assign_image_parameters}) and {@code parameters.assign} ({@code assign_field}).
 */
class ValidationConformanceTest {
    private static final Map<String, String> KNOWN_DEVIATIONS = Map.of();

    /**
     * Where Remold reports each Go error type a case checks with errors.As: the field, and a piece of Gatekeeper's
     * message that tells it from the other errors on that field.
     */
    private static final Map<String, Expected> ERROR_TYPES = Map.of(
            "invalidDomainError", new Expected("spec.parameters.assignDomain", "fully-qualified domain name"),
            "invalidPathError", new Expected("spec.parameters.assignPath", "must be a valid docker image path"),
            "invalidTagError", new Expected("spec.parameters.assignTag", "must be a valid docker image tag"),
            "missingComponentsError", new Expected("spec.parameters", "at least one of"),
            "domainLikePathError", new Expected("spec.parameters.assignPath", "interpretted as part of a domain"),
            "metadataRootError", new Expected("spec.location", "can't change metadata"),
            "listTerminalError", new Expected("spec.location", "cannot mutate list-type fields"));

    private record Expected(String field, String reasonPart) {
    }

    @Test
    void mutatorManifests() {
        ConformanceCorpus.run("validation", KNOWN_DEVIATIONS,
                c -> check(c, () -> Mutators.parse(c.getJsonObject("mutator"))), "mutator");
    }

    @Test
    void assignImageParameters() {
        ConformanceCorpus.run("validation", KNOWN_DEVIATIONS, c -> check(c, () -> ImageParameters.validated(
                c.getString("assignDomain"), c.getString("assignPath"), c.getString("assignTag"))),
                "assign_image_parameters");
    }

    @Test
    void assignField() {
        ConformanceCorpus.run("validation", KNOWN_DEVIATIONS,
                c -> check(c, () -> AssignField.parse(c.getJsonObject("assign"), "spec.parameters.assign")),
                "assign_field");
    }

    private static String check(JsonObject c, Runnable build) {
        JsonObject expect = c.getJsonObject("expect");
        boolean valid = expect.getBoolean("valid", true);
        try {
            build.run();
        } catch (InvalidMutatorException e) {
            return valid ? "refused: " + e.getMessage() : refusal(expect, e);
        }
        return valid ? null : "accepted";
    }

    /** Null when the refusal is the one the case expects. */
    private static String refusal(JsonObject expect, InvalidMutatorException e) {
        String contains = expect.getString("error_contains", null);
        if (contains != null && !e.getMessage().contains(contains)) {
            return "error \"" + e.getMessage() + "\" does not contain \"" + contains + "\"";
        }
        String prefix = expect.getString("error_prefix", null);
        if (prefix != null && !e.reason().startsWith(prefix)) {
            return "reason \"" + e.reason() + "\" does not start with \"" + prefix + "\"";
        }
        String type = expect.getString("error_type", null);
        if (type != null) {
            Expected expected = ERROR_TYPES.get(type);
            if (expected == null) {
                return "no mapping for error type " + type;
            }
            if (!e.field().equals(expected.field()) || !e.reason().contains(expected.reasonPart())) {
                return "expected " + type + " (" + expected + "), got " + e.getMessage();
            }
        }
        return null;
    }
}

package io.remold.engine;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.ModRules;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParsingException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Fuzzes a whole AdmissionReview through the engine, as the server hands it over: the body read by JsonTree (whose
 * {@link JsonParsingException} is documented), then mutate and validate with the example rules of examples/rules and
 * examples/kubemod-compat. The engine documents no exception: rule failures are outcomes. Seeds: AdmissionReviews
 * around the objects of the corpora and examples.
 */
class AdmissionReviewFuzzTest {
    private static final Engine ENGINE = Engine.builder().rules(exampleRules()).build();

    @FuzzTest
    void review(byte[] body) {
        JsonValue review;
        try {
            review = JsonTree.parse(body);
        } catch (JsonParsingException e) {
            return;
        }
        // What the server's AdmissionReview reader keeps; anything it refuses is taken leniently here instead.
        JsonObject request = review instanceof JsonObject o && o.get("request") instanceof JsonObject r ? r
                : JsonValue.EMPTY_JSON_OBJECT;
        AdmissionOperation operation = switch (string(request, "operation")) {
            case "UPDATE" -> AdmissionOperation.UPDATE;
            case "DELETE" -> AdmissionOperation.DELETE;
            default -> AdmissionOperation.CREATE;
        };
        JsonValue object = orNull(request.getOrDefault("object", review));
        JsonValue oldObject = orNull(request.get("oldObject"));
        for (boolean explain : new boolean[] {false, true}) {
            var admission = new AdmissionRequest(operation, string(request, "namespace"), object, oldObject,
                    orNull(request.get("namespaceRef")), orNull(request.get("nodeRef")), explain);
            Decision mutated = ENGINE.mutate(admission);
            ENGINE.validate(new AdmissionRequest(operation, admission.namespace(), mutated.result(), oldObject,
                    admission.namespaceRef(), admission.nodeRef(), explain));
        }
    }

    private static String string(JsonObject object, String key) {
        return object.get(key) instanceof JsonString s ? s.getString() : "";
    }

    private static JsonValue orNull(JsonValue value) {
        return value == null || value.getValueType() == JsonValue.ValueType.NULL ? null : value;
    }

    /** The rules of the examples, Remold's and KubeMod's (their test cases left out). */
    static List<ModRule> exampleRules() {
        try (Stream<Path> files = Stream.concat(Files.walk(Path.of("..", "examples", "rules")),
                Files.walk(Path.of("..", "examples", "kubemod-compat")))) {
            return files.filter(f -> f.toString().endsWith(".yaml") && !f.toString().contains("/cases/"))
                    .flatMap(f -> ModRules.read(f).stream()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

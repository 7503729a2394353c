package io.remold.jsonpath;

import com.code_intelligence.jazzer.junit.FuzzTest;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;

/**
 * Fuzzes compile and select. An input is an expression, optionally followed by a newline and the JSON document to
 * select from (a Deployment-like object otherwise). Compile may only throw {@link JsonPathSyntaxException}; select and
 * evaluate only {@link JsonPathEvaluationException}. Seeds: the selects of the KubeMod corpus and of examples/.
 */
class JsonPathFuzzTest {
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final JsonValue DEFAULT_DOCUMENT = read("""
            {"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web", "a.b/c": "x"},
                          "annotations": {"n": "1", "e": ""}},
             "spec": {"replicas": 3, "paused": false, "template": {"spec": {
                "containers": [{"name": "app", "image": "docker.io/nginx:1.27", "ports": [{"containerPort": 80}]},
                               {"name": "side", "image": "busybox", "args": ["-v", 2, 2.5, null, true]}],
                "volumes": []}}}}
            """);

    @FuzzTest
    void compileAndSelect(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        String expression = newline < 0 ? text : text.substring(0, newline);
        JsonValue document = newline < 0 ? DEFAULT_DOCUMENT : readOrDefault(text.substring(newline + 1));
        JsonPath path;
        try {
            path = JsonPath.compile(expression);
        } catch (JsonPathSyntaxException e) {
            return;
        }
        try {
            path.select(document);
        } catch (JsonPathEvaluationException e) {
            // documented
        }
        try {
            path.evaluate(document);
        } catch (JsonPathEvaluationException e) {
            // documented
        }
    }

    private static JsonValue readOrDefault(String json) {
        try {
            return read(json);
        } catch (RuntimeException e) {
            return DEFAULT_DOCUMENT;
        }
    }

    private static JsonValue read(String json) {
        try (var reader = JSON.createReader(new StringReader(json))) {
            return reader.readValue();
        }
    }
}

package io.remold.cli.eval;

import io.remold.cli.UsageException;
import io.remold.kinitiras.HttpAnswers;
import io.remold.kinitiras.PolicyEvaluationException;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code eval}'s HTTP: {@code --http URL=FILE} answers a kinitiras {@code http} reference whose {@code url} is URL
 * (as written, before kinitiras adds its {@code params}) with the body in FILE; no call is ever made, and any other
 * URL fails the policy, as a URL an administrator did not allow does.
 */
record FileHttpAnswers(Map<String, JsonValue> bodies) implements HttpAnswers {
    /** Reads every file now, so that a broken one is an input error (exit 2) before any rule runs. */
    static FileHttpAnswers read(Map<String, Path> files) {
        var bodies = new TreeMap<String, JsonValue>();
        files.forEach((url, file) -> {
            List<JsonValue> documents = EvalCommand.documents("--http " + url, file);
            if (documents.size() != 1) {
                throw new UsageException("--http " + url + " " + file + ": expected one YAML or JSON document, found "
                        + documents.size());
            }
            bodies.put(url, documents.getFirst());
        });
        return new FileHttpAnswers(Map.copyOf(bodies));
    }

    @Override
    public JsonValue answer(JsonObject reference) throws PolicyEvaluationException {
        String url = reference.getString("url", "");
        JsonValue body = bodies.get(url);
        if (body == null) {
            throw new PolicyEvaluationException("http valueRef " + url + ": not allowed (no --http " + url
                    + "=FILE; eval never calls out)");
        }
        return body;
    }
}

package io.remold.cli.eval;

import io.remold.cli.UsageException;
import io.remold.api.AllowedUrls;
import io.remold.kinitiras.HttpAnswers;
import io.remold.kinitiras.HttpCall;
import io.remold.kinitiras.PolicyEvaluationException;
import jakarta.json.JsonValue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code eval}'s HTTP: {@code --http URL=FILE} answers a kinitiras {@code http} reference whose {@code url} is URL
 * (as written, before kinitiras adds its {@code params}) with the body in FILE; no call is ever made, and any other
 * URL fails the policy. The URLs {@code allowed} ({@code --allow-http-ref}, as the server's) are checked first, as
 * the server checks them.
 */
record FileHttpAnswers(Map<String, JsonValue> bodies, AllowedUrls allowed) implements HttpAnswers {
    /** Reads every file now, so that a broken one is an input error (exit 2) before any rule runs. */
    static FileHttpAnswers read(Map<String, Path> files, AllowedUrls allowed) {
        var bodies = new TreeMap<String, JsonValue>();
        files.forEach((url, file) -> {
            List<JsonValue> documents = Manifests.documents("--http " + url, file);
            if (documents.size() != 1) {
                throw new UsageException("--http " + url + " " + file + ": expected one YAML or JSON document, found "
                        + documents.size());
            }
            bodies.put(url, documents.getFirst());
        });
        return new FileHttpAnswers(Map.copyOf(bodies), allowed);
    }

    @Override
    public JsonValue answer(HttpCall call, long deadlineNanos) throws PolicyEvaluationException {
        JsonValue body = bodies.get(call.written());
        if (body == null) {
            throw new PolicyEvaluationException("http valueRef " + call.written() + ": no answer (no --http "
                    + call.written() + "=FILE; eval never calls out)");
        }
        return body;
    }
}

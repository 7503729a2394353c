package io.remold.cli.eval;

import io.remold.api.Provider;
import io.remold.cli.UsageException;
import io.remold.templating.ExternalData;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code eval}'s external data providers: {@code --external NAME=FILE} answers provider NAME from FILE, never over
 * the network. FILE holds a mapping of key to value, or a Gatekeeper {@code ProviderResponse} (its items, so that a
 * key's error, or a {@code systemError} for every key, can be faked). A key the file lacks fails; a provider without a
 * file fails every key, closed. The Providers of the rule files ({@code declared}) act as the server's would: a
 * failure fails open for one with {@code failurePolicy: Ignore}, and a rule in a namespace its {@code spec.namespaces}
 * does not name is refused. A provider with a file but no Provider document serves every rule.
 */
record FileExternalData(Map<String, Answers> providers, Map<String, Provider> declared) implements ExternalData {
    private static final String RESPONSE_KIND = "ProviderResponse";

    /** One file's answers: values and errors by key, or one error for every key. */
    record Answers(String source, Map<String, JsonValue> values, Map<String, String> errors, String systemError) {
    }

    /** Reads every file now, so that a broken one is an input error (exit 2) before any rule runs. */
    static FileExternalData read(Map<String, Path> files, Map<String, Provider> declared) {
        var providers = new TreeMap<String, Answers>();
        files.forEach((name, file) -> providers.put(name, answers(name, file)));
        return new FileExternalData(Map.copyOf(providers), Map.copyOf(declared));
    }

    @Override
    public Map<String, Answer> fetch(String provider, Collection<String> keys) {
        Answers file = providers.get(provider);
        if (file == null) {
            return ExternalData.failAll(keys, "no --external file for provider " + provider, false, "eval");
        }
        Provider declaration = declared.get(provider);
        boolean open = declaration != null && declaration.failurePolicy() == Provider.FailurePolicy.Ignore;
        if (!file.systemError().isEmpty()) {
            return ExternalData.failAll(keys, file.systemError(), open, file.source());
        }
        var answers = new LinkedHashMap<String, Answer>();
        for (String key : keys) {
            JsonValue value = key.length() > MAX_KEY_LENGTH ? null : file.values().get(key);
            String error = value != null ? null : key.length() > MAX_KEY_LENGTH
                    ? "the key is longer than " + MAX_KEY_LENGTH + " characters" // as the server refuses it
                    : file.errors().getOrDefault(key, "not in " + file.source());
            answers.put(key, error == null ? Answer.of(value, file.source())
                    : Answer.failed(error, open, file.source()));
        }
        return answers;
    }

    /**
     * A view for the rules of {@code namespace}: refused, closed, by a Provider of the rule files whose
     * {@code spec.namespaces} does not serve it.
     */
    @Override
    public ExternalData forCaller(String namespace, boolean clusterWide) {
        return (provider, keys) -> {
            String refusal = declared.containsKey(provider)
                    ? declared.get(provider).refusal(namespace, clusterWide) : null;
            return refusal != null ? ExternalData.failAll(keys, refusal, false, "refused") : fetch(provider, keys);
        };
    }

    /** A view that remembers each answer for {@code --explain}. */
    @Override
    public ExternalData forRequest() {
        return ExternalData.recording(this);
    }

    private static Answers answers(String name, Path file) {
        String flag = "--external " + name;
        List<JsonValue> documents = Manifests.documents(flag, file);
        if (documents.size() != 1 || !(documents.getFirst() instanceof JsonObject object)) {
            throw new UsageException(flag + " " + file + ": expected one mapping of key to value, or a "
                    + RESPONSE_KIND);
        }
        String source = file.toString();
        if (!RESPONSE_KIND.equals(object.getString("kind", null))) {
            return new Answers(source, Map.copyOf(object), Map.of(), "");
        }
        if (!(object.get("response") instanceof JsonObject response)) {
            throw new UsageException(flag + " " + file + ": response: expected an object");
        }
        var values = new LinkedHashMap<String, JsonValue>();
        var errors = new LinkedHashMap<String, String>();
        JsonValue items = response.getOrDefault("items", JsonValue.EMPTY_JSON_ARRAY);
        if (!(items instanceof JsonArray list)) {
            throw new UsageException(flag + " " + file + ": response.items: expected a list");
        }
        for (int i = 0; i < list.size(); i++) {
            String at = flag + " " + file + ": response.items[" + i + "]";
            if (!(list.get(i) instanceof JsonObject item) || !(item.get("key") instanceof JsonString key)) {
                throw new UsageException(at + ": expected an object with a string key");
            }
            if (item.get("error") instanceof JsonString error && !error.getString().isEmpty()) {
                errors.put(key.getString(), error.getString());
            } else {
                values.put(key.getString(), item.getOrDefault("value", JsonValue.NULL));
            }
        }
        String systemError = response.get("systemError") instanceof JsonString s ? s.getString() : "";
        return new Answers(source, Map.copyOf(values), Map.copyOf(errors), systemError);
    }
}

package io.remold.kinitiras;

import jakarta.json.JsonObject;

import java.util.List;

/** {@code plaintext}: JSON patch operations as written (op, path, value; a missing value is null, as in kinitiras). */
record PlaintextOverrider(List<JsonObject> operations) implements Overrider {
    PlaintextOverrider {
        operations = List.copyOf(operations);
    }

    @Override
    public List<JsonObject> patches(PolicyInput input) {
        return operations;
    }
}

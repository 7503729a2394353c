package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.match.Source;
import jakarta.json.JsonObject;

/**
 * What a mutator sees: the object (the current state of the mutation loop), its namespace object (null for
 * cluster-scoped objects or when unknown), the requesting user, the source and the admission operation ({@code
 * CREATE}, {@code UPDATE}, ...; empty when unknown).
 */
public record Mutable(JsonObject object, JsonObject namespace, String username, Source source, String operation) {
    public Mutable {
        username = username == null ? "" : username;
        source = source == null ? Source.All : source;
        operation = operation == null ? "" : operation;
    }

    /** The same request with another object: the next step of the mutation loop. */
    public Mutable withObject(JsonObject next) {
        return new Mutable(next, namespace, username, source, operation);
    }
}

package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.match.Source;
import io.remold.templating.ExternalData;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a mutator sees: the object (the current state of the mutation loop), its namespace object (null for
 * cluster-scoped objects or when unknown), the requesting user, the source, the admission operation ({@code
 * CREATE}, {@code UPDATE}, ...; empty when unknown) and the request's {@link External} data.
 */
public record Mutable(JsonObject object, JsonObject namespace, String username, Source source, String operation,
                      External external) {
    public Mutable {
        username = username == null ? "" : username;
        source = source == null ? Source.All : source;
        operation = operation == null ? "" : operation;
        external = external == null ? new External(ExternalData.NONE) : external;
    }

    /** A request without external data providers: an Assign with {@code externalData} fails as its policy says. */
    public Mutable(JsonObject object, JsonObject namespace, String username, Source source, String operation) {
        this(object, namespace, username, source, operation, null);
    }

    /** The same request with another object: the next step of the mutation loop. */
    public Mutable withObject(JsonObject next) {
        return new Mutable(next, namespace, username, source, operation, external);
    }

    /**
     * One request's external data: the view providers are asked through, and, per mutator, the values it assigned
     * (so that a later pass of the mutation loop does not take an answer for a key: Gatekeeper resolves its
     * placeholders once) and what its calls answered (for {@code --explain}). Used by one request's thread only.
     */
    public static final class External {
        private final ExternalData data;
        private final Map<MutatorId, Set<JsonValue>> assigned = new HashMap<>();
        private final Map<MutatorId, List<String>> explained = new LinkedHashMap<>();

        public External(ExternalData data) {
            this.data = data;
        }

        /** What each mutator's calls answered, one line per key, in the order asked. */
        public Map<MutatorId, List<String>> explained() {
            return explained;
        }

        /**
         * The values {@code mutator} assigned in this request, which it leaves alone when it meets them again in a
         * later pass (a pass reads a snapshot of them, so it never skips a location for what it assigned itself).
         */
        Set<JsonValue> assigned(MutatorId mutator) {
            return assigned.computeIfAbsent(mutator, id -> new HashSet<>());
        }

        /** Asks {@code provider} for {@code keys} in one fetch on behalf of {@code mutator}. */
        Map<String, ExternalData.Answer> fetch(MutatorId mutator, String provider, Collection<String> keys) {
            int before = data.explained().size();
            Map<String, ExternalData.Answer> answers = data.fetch(provider, keys);
            List<String> lines = data.explained();
            if (lines.size() > before) {
                explained.computeIfAbsent(mutator, id -> new ArrayList<>()).addAll(lines.subList(before, lines.size()));
            }
            return answers;
        }
    }
}

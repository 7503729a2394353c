package io.remold.engine;

/**
 * Where the engine gets the objects a rule's {@code spec.references} name: the server answers from informer caches,
 * {@code eval} from {@code --ref NAME=FILE} files. Implementations are thread-safe and never wait on the network:
 * the engine calls them on the request path.
 */
@FunctionalInterface
public interface ReferenceResolver {
    /** Resolves nothing: every reference is missing. */
    ReferenceResolver NONE = query -> new Resolution(null, "no reference source");

    /**
     * The object a by-name query names (value null when there is none), or the list of objects a selector query
     * selects (empty when none), with where it came from. Throws {@link ReferenceException} when the query is not
     * allowed (a kind that may not be referenced, a cluster-scoped kind for a namespaced rule).
     */
    Resolution resolve(ReferenceQuery query);

    /** What a query found and where from (for {@code --explain}). */
    record Resolution(jakarta.json.JsonValue value, String source) {
    }
}

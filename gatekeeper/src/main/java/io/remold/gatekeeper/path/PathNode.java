package io.remold.gatekeeper.path;

/** One step of a Gatekeeper {@code location}: a map key, or an element of a keyed list. */
public sealed interface PathNode permits PathNode.Field, PathNode.KeyedList {

    /** A map key: {@code spec}, or a quoted {@code "app.kubernetes.io/name"}. */
    record Field(String name) implements PathNode {
    }

    /**
     * A keyed list element: {@code [name: foo]}, where {@code keyValue} is a {@link String} or, when unquoted and
     * numeric, a {@link Long} ({@code [port: 8080]} does not match the string {@code "8080"}); or a glob
     * {@code [name: *]}, where {@code keyValue} is null and only existing elements are visited.
     */
    record KeyedList(String keyField, Object keyValue, boolean glob) implements PathNode {
    }
}

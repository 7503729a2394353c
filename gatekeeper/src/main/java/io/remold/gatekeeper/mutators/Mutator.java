package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.path.PathNode;

import java.util.List;

/**
 * One compiled mutator (immutable, thread-safe): Assign, AssignMetadata, ModifySet or AssignImage, or a test's fake.
 */
public interface Mutator {
    MutatorId id();

    /** Whether the mutator applies to the request: its applyTo (kind and operation) and its match criteria. */
    boolean matches(Mutable mutable) throws MutationException;

    /** The object after this mutator, or {@code mutable.object()} itself when it changed nothing. */
    jakarta.json.JsonObject mutate(Mutable mutable) throws MutationException;

    /** The parsed {@code location}. */
    List<PathNode> path();

    /** The kinds and operations the mutator is bound to, for schema-conflict detection; empty for AssignMetadata. */
    List<SchemaBinding> schemaBindings();

    /** Whether the value comes from an external data provider. */
    boolean usesExternalData();
}

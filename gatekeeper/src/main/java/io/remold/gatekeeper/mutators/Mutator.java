package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.match.GroupKind;
import io.remold.gatekeeper.path.PathNode;

import java.util.List;
import java.util.Set;

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

    /**
     * The groups and kinds of object {@link #matches} can be true for, or null for any: the mutation system skips the
     * mutator for other kinds without asking it. A fake that does not say matches every kind.
     */
    default Set<GroupKind> kindsAdmitted() {
        return null;
    }

    /**
     * The effective namespaces ({@code Match.effectiveNamespace}) a namespaced object must have for {@link #matches}
     * to be true, or null for any; the mutation system skips the mutator for objects elsewhere without asking it.
     */
    default Set<String> namespacesAdmitted() {
        return null;
    }

    /** The {@code location} as the manifest writes it, for explanations; null for a fake that has none. */
    default String location() {
        return null;
    }
}

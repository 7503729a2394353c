package io.remold.gatekeeper.mutators;

import io.remold.gatekeeper.match.ApplyTo;
import io.remold.gatekeeper.match.GroupKind;
import io.remold.gatekeeper.match.GroupVersionKind;
import io.remold.gatekeeper.match.MatchException;
import io.remold.gatekeeper.path.PathNode;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A compiled mutator of any kind: where it applies (applyTo when it has a schema, then match), its location and path
 * tests, and the {@link Setter} it applies there. A kind differs only in its checks and its setter.
 *
 * @param schemaBindings empty for a kind without a schema (AssignMetadata), which then matches on match alone
 */
record LocationMutator(MutatorSpec spec, List<SchemaBinding> schemaBindings, PathTests tests,
                       boolean usesExternalData, Setters setters) implements Mutator {

    /**
     * The setter for one request (AssignMetadata's value may come from the object), or null when the mutator leaves
     * the object as it is (an {@code externalData} assign with no location to resolve).
     */
    @FunctionalInterface
    interface Setters {
        Setter forRequest(Mutable mutable) throws MutationException;
    }

    @Override
    public MutatorId id() {
        return spec.id();
    }

    @Override
    public String location() {
        return spec.location();
    }

    @Override
    public List<PathNode> path() {
        return spec.path();
    }

    @Override
    public boolean matches(Mutable mutable) throws MutationException {
        if (!schemaBindings.isEmpty()
                && !ApplyTo.appliesTo(spec.applyTo(), GroupVersionKind.of(mutable.object()), mutable.operation())) {
            return false;
        }
        try {
            return spec.match().matches(mutable.object(), mutable.namespace(), mutable.source());
        } catch (MatchException e) {
            throw new MutationException(id() + ": " + e.getMessage(), e);
        }
    }

    /** applyTo's kinds when the mutator has a schema (it is checked first), else match's. */
    @Override
    public Set<GroupKind> kindsAdmitted() {
        if (schemaBindings.isEmpty()) {
            return spec.match().kindsAdmitted();
        }
        return schemaBindings.stream().map(b -> GroupKind.of(b.gvk())).collect(Collectors.toUnmodifiableSet());
    }

    @Override
    public Set<String> namespacesAdmitted() {
        return spec.match().namespacesAdmitted();
    }

    @Override
    public JsonObject mutate(Mutable mutable) throws MutationException {
        Setter setter = setters.forRequest(mutable);
        return setter == null ? mutable.object() : Core.mutate(spec.path(), tests, setter, mutable.object());
    }
}

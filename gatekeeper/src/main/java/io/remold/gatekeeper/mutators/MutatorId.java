package io.remold.gatekeeper.mutators;

import java.util.Comparator;

/**
 * A mutator's identity. Mutators run in ascending byte order of group, kind, namespace and name, so every Assign
 * runs before every AssignImage, AssignMetadata and ModifySet (group {@code mutations.gatekeeper.sh}).
 */
public record MutatorId(String group, String kind, String namespace, String name) implements Comparable<MutatorId> {
    private static final Comparator<MutatorId> ORDER = Comparator.comparing(MutatorId::group)
            .thenComparing(MutatorId::kind).thenComparing(MutatorId::namespace).thenComparing(MutatorId::name);

    public MutatorId {
        group = group == null ? "" : group;
        kind = kind == null ? "" : kind;
        namespace = namespace == null ? "" : namespace;
        name = name == null ? "" : name;
    }

    /** Java's String order is UTF-16 order, which equals byte order for the names Kubernetes allows. */
    @Override
    public int compareTo(MutatorId other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return kind + "/" + (namespace.isEmpty() ? "" : namespace + "/") + name;
    }
}

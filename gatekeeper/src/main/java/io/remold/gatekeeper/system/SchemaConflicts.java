package io.remold.gatekeeper.system;

import io.remold.gatekeeper.match.GroupVersionKind;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.mutators.MutatorId;
import io.remold.gatekeeper.mutators.SchemaBinding;
import io.remold.gatekeeper.path.PathNode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Gatekeeper's schema database, for a fixed set of mutators. Every location implies part of the schema of the kinds
 * (and operations) the mutator is bound to: {@code spec.containers[name: foo].image} says that {@code spec} is an
 * object, {@code containers} a list keyed by {@code name}, and says nothing about {@code image}. Two mutators that
 * disagree on such a node of the same binding (object or list, or lists keyed by different fields) conflict: both are
 * disabled. A location's last node has no known type, except for a value from external data or a ModifySet or
 * AssignImage, whose types (string, set) conflict with a location that goes on below it.
 *
 * <p>Gatekeeper updates the database one upsert or removal at a time and keeps a mutator flagged until a removal
 * clears it; for a set of mutators its flags are those of this snapshot, which adds them all at once.
 */
final class SchemaConflicts {
    private static final String CONFLICT = "the following mutators have conflicting schemas: ";

    /** What a node of the implied schema is. */
    private enum NodeType {
        OBJECT, LIST, SET, STRING,
        /** Unknown conflicts with nothing. */
        UNKNOWN
    }

    /** A node of one binding's implied schema: who references it, and its children by key and by type. */
    private static final class Node {
        final Set<MutatorId> referencedBy = new TreeSet<>();
        /** A child under the same key with several types (or a list with several key fields) is a conflict. */
        final Map<String, Map<NodeType, Node>> children = new LinkedHashMap<>();
    }

    private SchemaConflicts() {
    }

    /** The conflicting mutators and, for each, Gatekeeper's error naming it and the others, and where they disagree. */
    static Map<MutatorId, String> find(Collection<? extends Mutator> mutators) {
        Map<SchemaBinding, Node> schemas = new LinkedHashMap<>();
        for (Mutator m : mutators) {
            if (m.path().isEmpty()) {
                continue;
            }
            for (SchemaBinding binding : m.schemaBindings()) {
                add(schemas.computeIfAbsent(binding, b -> new Node()), m.id(), m.path(), terminalType(m));
            }
        }
        Map<MutatorId, Set<MutatorId>> partners = new TreeMap<>();
        Map<MutatorId, String> firstSite = new HashMap<>();
        schemas.forEach((binding, root) -> collect(root, NodeType.OBJECT, "", describe(binding), partners, firstSite));
        Map<MutatorId, String> out = new LinkedHashMap<>();
        partners.forEach((id, group) -> out.put(id, CONFLICT + names(group) + " (" + firstSite.get(id) + ")"));
        return out;
    }

    /**
     * The type of the value a location assigns. Gatekeeper asks the mutator; ours says only whether it uses external
     * data (always a string), so the kind tells the rest: ModifySet edits a set, AssignImage a string.
     */
    private static NodeType terminalType(Mutator m) {
        if (m.usesExternalData()) {
            return NodeType.STRING;
        }
        return switch (m.id().kind()) {
            case "ModifySet" -> NodeType.SET;
            case "AssignImage" -> NodeType.STRING;
            default -> NodeType.UNKNOWN;
        };
    }

    private static void add(Node root, MutatorId id, List<PathNode> path, NodeType terminal) {
        Node node = root;
        node.referencedBy.add(id);
        for (int i = 0; i < path.size(); i++) {
            NodeType type = i + 1 < path.size() ? typeOf(path.get(i + 1)) : terminal;
            node = node.children.computeIfAbsent(key(path.get(i)), k -> new EnumMap<>(NodeType.class))
                    .computeIfAbsent(type, t -> new Node());
            node.referencedBy.add(id);
        }
    }

    /** A field is keyed by its name, a list element by its key field: globbed or not, it is the same node. */
    private static String key(PathNode node) {
        return switch (node) {
            case PathNode.Field f -> f.name();
            case PathNode.KeyedList l -> l.keyField();
        };
    }

    /** The type a node implies for the value it is read from. */
    private static NodeType typeOf(PathNode node) {
        return node instanceof PathNode.KeyedList ? NodeType.LIST : NodeType.OBJECT;
    }

    /** Walks the tree; at each key, the mutators behind the disagreeing types are partners of one another. */
    private static void collect(Node node, NodeType nodeType, String at, String binding,
                                Map<MutatorId, Set<MutatorId>> partners, Map<MutatorId, String> firstSite) {
        node.children.forEach((key, byType) -> {
            String child = nodeType == NodeType.LIST ? at + "[" + key + ": *]" : at.isEmpty() ? key : at + "." + key;
            long knownTypes = byType.keySet().stream().filter(t -> t != NodeType.UNKNOWN).count();
            Set<MutatorId> group = new TreeSet<>();
            byType.forEach((type, n) -> {
                if (type != NodeType.UNKNOWN && (knownTypes > 1 || type == NodeType.LIST && n.children.size() > 1)) {
                    group.addAll(n.referencedBy);
                }
            });
            for (MutatorId id : group) {
                partners.computeIfAbsent(id, k -> new TreeSet<>()).addAll(group);
                firstSite.putIfAbsent(id, "they disagree on the type of " + child + " in " + binding);
            }
            byType.forEach((type, n) -> collect(n, type, child, binding, partners, firstSite));
        });
    }

    private static String describe(SchemaBinding binding) {
        GroupVersionKind gvk = binding.gvk();
        String apiVersion = gvk.group().isEmpty() ? gvk.version() : gvk.group() + "/" + gvk.version();
        return apiVersion + " " + gvk.kind() + " on " + binding.operation();
    }

    /** Gatekeeper's list of mutator ids ({@code Kind.group namespace/name}), sorted as text, comma-separated. */
    private static String names(Set<MutatorId> ids) {
        var names = new ArrayList<String>();
        for (MutatorId id : ids) {
            names.add(MutationSystem.gatekeeperName(id));
        }
        names.sort(null);
        return "[" + String.join(",", names) + "]";
    }
}

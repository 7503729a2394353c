package io.remold.gatekeeper.system;

import io.remold.gatekeeper.match.GroupKind;
import io.remold.gatekeeper.match.Match;
import io.remold.gatekeeper.mutators.Mutable;
import io.remold.gatekeeper.mutators.MutationException;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.mutators.MutatorId;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * An immutable snapshot of mutators in Gatekeeper's order (ascending {@link MutatorId}), with schema conflicts
 * resolved (conflicting mutators are disabled), applied the way Gatekeeper's mutation system does: every matching
 * mutator in order, pass after pass, until a pass changes nothing.
 */
public final class MutationSystem {
    private final List<Mutator> ordered;
    private final List<Mutator> enabled;
    private final Map<MutatorId, String> conflicts;
    /**
     * For each group and kind some mutator names, the enabled mutators that may match such an object (those that
     * name it and those that admit any kind), in order: a request visits only these, and of them only those whose
     * exact namespace lists admit its namespace, which is what keeps 1,000 mutators for other kinds and namespaces
     * from costing 1,000 match checks a pass (BENCHMARKS.md). Other kinds get {@link #anyKind}.
     */
    private final Map<GroupKind, List<Mutator>> byKind;
    private final List<Mutator> anyKind;
    private final Map<MutatorId, Integer> positions;

    private MutationSystem(List<Mutator> ordered, Map<MutatorId, String> conflicts) {
        this.ordered = ordered;
        this.enabled = ordered.stream().filter(m -> !conflicts.containsKey(m.id())).toList();
        this.conflicts = conflicts;
        var kinds = new HashMap<MutatorId, Set<GroupKind>>();
        enabled.forEach(m -> kinds.put(m.id(), m.kindsAdmitted()));
        this.anyKind = enabled.stream().filter(m -> kinds.get(m.id()) == null).toList();
        var keys = new HashSet<GroupKind>();
        kinds.values().stream().filter(Objects::nonNull).forEach(keys::addAll);
        var index = new HashMap<GroupKind, List<Mutator>>();
        for (GroupKind key : keys) {
            index.put(key, enabled.stream()
                    .filter(m -> kinds.get(m.id()) == null || kinds.get(m.id()).contains(key)).toList());
        }
        this.byKind = Map.copyOf(index);
        var position = new HashMap<MutatorId, Integer>();
        for (int i = 0; i < enabled.size(); i++) {
            position.put(enabled.get(i).id(), i);
        }
        this.positions = Map.copyOf(position);
    }

    /**
     * The snapshot of these mutators; of two with the same id the later one counts (an upsert replaces). A null
     * mutator is refused with Gatekeeper's {@code attempted to add nil mutator}.
     */
    public static MutationSystem of(Collection<? extends Mutator> mutators) {
        var byId = new TreeMap<MutatorId, Mutator>();
        for (Mutator m : mutators) {
            Objects.requireNonNull(m, "attempted to add nil mutator");
            byId.put(m.id(), m);
        }
        return new MutationSystem(List.copyOf(byId.values()),
                Collections.unmodifiableMap(SchemaConflicts.find(byId.values())));
    }

    /** The enabled mutator {@code id} (one that {@link #mutate} may have run). */
    public Mutator mutator(MutatorId id) {
        return enabled.get(positions.get(id));
    }

    /** The mutators in the order they run, including disabled ones. */
    public List<MutatorId> order() {
        return ordered.stream().map(Mutator::id).toList();
    }

    /**
     * Mutators disabled by a schema conflict, in id order, with Gatekeeper's reason ({@code the following mutators
     * have conflicting schemas: [...]}) naming them all, then where they first disagree.
     */
    public Map<MutatorId, String> conflicts() {
        return conflicts;
    }

    /**
     * Runs the matching mutators until the object converges. Throws {@code mutation not converging} when it does not
     * within len(mutators)+1 passes, {@code oscillating mutation} when it converges back to the input after changing
     * it, or the first error of a mutator's match or mutation (the whole mutation fails).
     */
    public Result mutate(Mutable mutable) throws MutationException {
        JsonObject original = mutable.object();
        JsonObject current = original;
        var changes = new ArrayList<Change>();
        int maxPasses = ordered.size() + 1;
        for (int pass = 1; pass <= maxPasses; pass++) {
            JsonObject before = current;
            List<Mutator> candidates = byKind.getOrDefault(GroupKind.of(current), anyKind);
            String namespace = Match.effectiveNamespace(current, mutable.namespace());
            for (int i = 0; i < candidates.size(); i++) {
                Mutator m = candidates.get(i);
                Set<String> namespaces = m.namespacesAdmitted();
                if (namespace != null && namespaces != null && !namespaces.contains(namespace)) {
                    continue;
                }
                JsonObject next = apply(m, mutable.withObject(current), changes);
                if (next != current && !sameKind(current, next)) {
                    // A mutator changed the object's kind: the rest of this pass goes on with the new kind's.
                    candidates = after(m, byKind.getOrDefault(GroupKind.of(next), anyKind));
                    namespace = Match.effectiveNamespace(next, mutable.namespace());
                    i = -1;
                }
                current = next;
            }
            if (same(before, current)) {
                if (pass == 1) {
                    return new Result(original, false, List.of(), pass);
                }
                if (same(original, current)) {
                    throw new MutationException("oscillating mutation for " + describe(original));
                }
                return new Result(current, true, List.copyOf(changes), pass);
            }
        }
        throw new MutationException("mutation not converging for " + describe(original) + " after " + maxPasses
                + " passes");
    }

    private static JsonObject apply(Mutator m, Mutable step, List<Change> changes) throws MutationException {
        try {
            if (!m.matches(step)) {
                return step.object();
            }
            JsonObject next = m.mutate(step);
            if (next != step.object()) {
                changes.add(new Change(m.id(), step.object(), next));
            }
            return next;
        } catch (MutationException e) {
            throw new MutationException("mutation for mutator " + gatekeeperName(m.id()) + " failed for "
                    + describe(step.object()) + ": " + e.getMessage(), e);
        }
    }

    /** The mutators of {@code candidates} (in order) that come after {@code m}. */
    private List<Mutator> after(Mutator m, List<Mutator> candidates) {
        int position = positions.get(m.id());
        int from = 0;
        while (from < candidates.size() && positions.get(candidates.get(from).id()) <= position) {
            from++;
        }
        return candidates.subList(from, candidates.size());
    }

    private static boolean sameKind(JsonObject a, JsonObject b) {
        return Objects.equals(a.get("apiVersion"), b.get("apiVersion")) && Objects.equals(a.get("kind"), b.get("kind"));
    }

    private static boolean same(JsonObject a, JsonObject b) {
        return a == b || a.equals(b);
    }

    /** The object as Gatekeeper's errors name it: group, kind, namespace and name (those it has). */
    private static String describe(JsonObject object) {
        String apiVersion = text(object, "apiVersion");
        int slash = apiVersion.indexOf('/');
        var metadata = object.get("metadata") instanceof JsonObject m ? m : JsonValue.EMPTY_JSON_OBJECT;
        String text = String.join(" ", slash < 0 ? "" : apiVersion.substring(0, slash), text(object, "kind"),
                text(metadata, "namespace"), text(metadata, "name")).trim().replaceAll(" +", " ");
        return text.isEmpty() ? "the object" : text;
    }

    private static String text(JsonObject object, String key) {
        return object.get(key) instanceof JsonString s ? s.getString() : "";
    }

    /** A mutator's id the way Gatekeeper prints it: {@code Kind.group namespace/name} ({@code Kind} when no group). */
    static String gatekeeperName(MutatorId id) {
        String groupKind = id.group().isEmpty() ? id.kind() : id.kind() + "." + id.group();
        return groupKind + " " + id.namespace() + "/" + id.name();
    }

    /**
     * The final object ({@code mutable.object()} itself when nothing changed), whether it differs from the input, each
     * change a mutator made, in the order made (a mutator may change the object in several passes), and the number
     * of passes run (the last one changed nothing).
     */
    public record Result(JsonObject object, boolean mutated, List<Change> changes, int passes) {
        /** The mutators that changed the object, in the order they first did. */
        public List<MutatorId> changedBy() {
            return changes.stream().map(Change::mutator).distinct().toList();
        }
    }

    /** One mutator's application that changed the object: the object before and after it. */
    public record Change(MutatorId mutator, JsonObject before, JsonObject after) {
    }
}

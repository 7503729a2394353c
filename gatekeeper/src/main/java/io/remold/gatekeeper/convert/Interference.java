package io.remold.gatekeeper.convert;

import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.mutators.MutatorId;
import io.remold.gatekeeper.path.Location;
import io.remold.gatekeeper.path.PathNode;
import jakarta.json.JsonObject;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where converting mutators one by one stops being exact for the set. Gatekeeper runs its mutators in id order pass
 * after pass until a pass changes nothing; converted rules run once, one tier each in the same order. The two agree
 * when no mutator writes what an earlier one reads (its location, or the kind and labels its match reads), since each
 * converted mutator changes nothing the second time. A mutator that stays in Gatekeeper's form runs after every
 * ModRule, so a converted one must not read what such a mutator, earlier in Gatekeeper's order, writes either.
 */
final class Interference {
    private static final List<PathNode> API_VERSION = List.of(new PathNode.Field("apiVersion"));
    private static final List<PathNode> KIND = List.of(new PathNode.Field("kind"));
    private static final List<PathNode> LABELS = List.of(new PathNode.Field("metadata"), new PathNode.Field("labels"));

    private Interference() {
    }

    /**
     * What one mutator reads and writes, as location prefixes: {@code creates} is the element of its first key step
     * with no glob after it, which it creates when missing (null without one), and {@code createsAlways} whether no
     * MustExist path test can stop it from creating that element.
     */
    record Footprint(MutatorId id, List<PathNode> writes, List<PathNode> creates, boolean createsAlways,
                     List<List<PathNode>> reads) {
        static Footprint of(Mutator mutator, JsonObject manifest) {
            var reads = new ArrayList<List<PathNode>>(List.of(mutator.path(), API_VERSION, KIND));
            JsonObject spec = manifest.getJsonObject("spec");
            if (spec.get("match") instanceof JsonObject match
                    && (match.containsKey("labelSelector") || match.containsKey("namespaceSelector"))) {
                reads.add(LABELS); // a Namespace's own labels are its namespaceSelector's
            }
            List<PathNode> path = mutator.path();
            List<PathNode> creates = created(path);
            boolean createsAlways = creates != null && mustExistDepths(spec).stream()
                    .noneMatch(depth -> depth >= creates.size() - 1);
            return new Footprint(mutator.id(), path, creates, createsAlways, reads);
        }

        /**
         * Whether this mutator changes what {@code other} reads: it writes there, or it creates a list element that
         * {@code other} walks into and would not have created itself.
         */
        boolean writesWhatIsReadBy(Footprint other) {
            if (other.reads.stream().anyMatch(read -> overlap(writes, read))) {
                return true;
            }
            return creates != null && overlap(creates, other.writes)
                    && !(other.createsAlways && other.creates.equals(creates));
        }

        /** The path up to the first key step that creates its element, or null when none does. */
        private static List<PathNode> created(List<PathNode> path) {
            for (int i = 0; i < path.size(); i++) {
                if (MutatorRules.Walk.createsAfterLastGlob(path, i)) {
                    return path.subList(0, i + 1);
                }
            }
            return null;
        }

        private static List<Integer> mustExistDepths(JsonObject spec) {
            var depths = new ArrayList<Integer>();
            if (spec.get("parameters") instanceof JsonObject parameters
                    && parameters.get("pathTests") instanceof jakarta.json.JsonArray tests) {
                for (var test : tests.getValuesAs(JsonObject.class)) {
                    if ("MustExist".equals(test.getString("condition", ""))) {
                        depths.add(Location.parse(test.getString("subPath", "")).size() - 1);
                    }
                }
            }
            return depths;
        }
    }

    /**
     * The mutators whose conversion is not exact within this set, with why; {@code footprints} in Gatekeeper's order,
     * {@code refused} the ids that stay mutators for reasons of their own.
     */
    static Map<MutatorId, String> find(List<Footprint> footprints, java.util.Set<MutatorId> refused) {
        var out = new LinkedHashMap<MutatorId, String>();
        for (int i = 0; i < footprints.size(); i++) {
            for (int j = i + 1; j < footprints.size(); j++) {
                Footprint earlier = footprints.get(i);
                Footprint later = footprints.get(j);
                if (later.writesWhatIsReadBy(earlier)) {
                    String why = later.id() + " writes " + Location.format(later.writes()) + ", which " + earlier.id()
                            + " (earlier in Gatekeeper's order) reads: Gatekeeper runs " + earlier.id()
                            + " again until nothing changes, converted rules run once in order";
                    out.putIfAbsent(earlier.id(), why);
                    out.putIfAbsent(later.id(), why);
                }
                if (refused.contains(earlier.id()) && earlier.writesWhatIsReadBy(later)) {
                    out.putIfAbsent(later.id(), "it reads " + Location.format(earlier.writes()) + ", which "
                            + earlier.id() + " writes before it in Gatekeeper's order; that mutator is not converted"
                            + " and would run after every ModRule");
                }
            }
        }
        out.keySet().removeAll(refused);
        return out;
    }

    /** Whether two locations can reach a common node: one leads into the other on some object. */
    static boolean overlap(List<PathNode> a, List<PathNode> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            if (!sameNodePossible(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameNodePossible(PathNode a, PathNode b) {
        return switch (a) {
            case PathNode.Field f -> b instanceof PathNode.Field g && f.name().equals(g.name());
            case PathNode.KeyedList k -> b instanceof PathNode.KeyedList l && (k.glob() || l.glob()
                    || !k.keyField().equals(l.keyField()) || k.keyValue().equals(l.keyValue()));
        };
    }
}

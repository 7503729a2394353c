package io.remold.engine;

import io.remold.api.InvalidFieldException;
import jakarta.json.JsonObject;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;

/**
 * A rule family beside ModRules, as one class: the resources its rules are, how a manifest becomes one of its rules,
 * and how a set of them becomes a {@link Stage} of the engine. The rules module's {@code Families} lists them, in the
 * order their stages run; rule documents, the assembly, the rule store and the cluster's informers go through this
 * interface and name no family.
 *
 * <p>An instance belongs to one owner (the rule store, one {@code eval}): a family whose stage needs a runtime (threads,
 * a sandbox) creates it on the first {@link #compile} that has rules, keeps it across compilations, and {@link #close}
 * (the owner's, after its last compilation) closes it.
 *
 * @param <R> the family's compiled rule
 */
public interface Family<R> extends AutoCloseable {
    /** How the family's outcomes, warnings and audit annotations name it. */
    RuleFamily family();

    /** The resources (group, version, kind and plural) its rules are served as; each watched once its CRD is served. */
    List<Resource> resources();

    /** The reason of the Ready condition of a rule of this family that is in force. */
    String readyReason();

    /** Whether a manifest is a rule of this family (checked before ModRules: a family may claim a ModRule form). */
    boolean owns(JsonObject manifest);

    /** Reads and compiles one manifest, or throws naming the offending field and why. */
    R parse(JsonObject manifest) throws InvalidFieldException;

    /** How outcomes name the rule; unique within a rule set. */
    String id(R rule);

    /**
     * Where the rule may refuse requests, which the validating webhook must then reach: its namespace, empty text for
     * every namespace, or empty when it never refuses.
     */
    Optional<String> refusesIn(R rule);

    /**
     * Whether the rule can refuse a request at all (in either webhook), which its mode {@code Warn} needs; by
     * default where {@link #refusesIn} says it may.
     */
    default boolean canRefuse(R rule) {
        return refusesIn(rule).isPresent();
    }

    /**
     * JSON patch operations the family's own webhook writes into a rule when it is admitted ({@code old}: the stored
     * rule on UPDATE, else null), for the mutating webhook of the family's resources to answer; none by default.
     * Throws naming the field when the rule cannot be completed.
     */
    default List<JsonObject> admissionPatch(JsonObject manifest, JsonObject old) throws InvalidFieldException {
        return List.of();
    }

    /**
     * The kinds the rule reads from the cluster while it runs (its references), so that their caches are started for
     * it as for ModRules' {@code spec.references}, and so that a kind the server may not read keeps the rule out of
     * force. None by default.
     */
    default Set<ReferencedKind> referencedKinds(R rule) {
        return Set.of();
    }

    /**
     * The kinds of object the rule can decide, when its match names them, so that an impact scan lists only those;
     * empty when it may decide objects of any kind. A wider set than the rule matches is harmless (the rule decides),
     * a narrower one would miss objects.
     */
    default Optional<Set<TargetKind>> targetKinds(R rule) {
        return Optional.empty();
    }

    /** The family's stage of a rule set (its rules by source key, sorted), created on the caller's thread. */
    Compiled compile(SortedMap<String, R> rules);

    /** Closes the family's runtime, if it made one. */
    @Override
    default void close() {
    }

    /**
     * A kind a rule reads ({@code apiVersion}, {@code kind}), and whether the rule may read it in every namespace and
     * cluster-scoped (an administrator's rule) or only in its own namespace.
     */
    record ReferencedKind(String apiVersion, String kind, boolean clusterWide) {
        /** As the reference caches name a kind: {@code apiVersion kind}. */
        public String key() {
            return apiVersion + " " + kind;
        }
    }

    /**
     * A kind of object a rule can decide: by {@code kind} (with its API {@code group}, or any group when null) or,
     * when {@code kind} is null, by {@code resource} (plural, lowercase) in any group. The core group is empty text.
     */
    record TargetKind(String group, String kind, String resource) {
        public TargetKind {
            if ((kind == null) == (resource == null)) {
                throw new IllegalArgumentException("a target kind names a kind or a resource: " + kind + ", "
                        + resource);
            }
        }

        /** The group of an {@code apiVersion} ({@code apps/v1}: apps; {@code v1}: the core group, empty). */
        public static String groupOf(String apiVersion) {
            int slash = apiVersion.indexOf('/');
            return slash < 0 ? "" : apiVersion.substring(0, slash);
        }
    }

    /** A resource a family's rules are served as. */
    record Resource(String group, String version, String kind, String plural) {
    }

    /**
     * What {@link #compile} made: the stage (empty when the family runs nothing for this set), the rules it disables
     * (by source key, with why), the resources its runtime receives events of, the runtime itself, the number of
     * rules the stage holds, and how outcomes name the set's rules.
     */
    record Compiled(Optional<Stage> stage, Map<String, String> disabled, Set<String> watchedResources,
                    Optional<AutoCloseable> runtime, int ruleCount, Set<String> outcomeNames) {
        public Compiled {
            disabled = Map.copyOf(disabled);
            watchedResources = Set.copyOf(watchedResources);
            outcomeNames = Set.copyOf(outcomeNames);
        }
    }
}

package io.remold.gatekeeper;

import io.remold.engine.Family;
import io.remold.engine.RuleFamily;
import io.remold.gatekeeper.match.GroupKind;
import io.remold.gatekeeper.mutators.Mutator;
import jakarta.json.JsonObject;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/** Gatekeeper's mutators as a rule family: one {@link Gatekeeper.Stage}, always registered; needs no runtime. */
public final class GatekeeperFamily implements Family<Mutator> {
    /** The Ready condition's reason of a mutator in force (also read back from Gatekeeper's {@code byPod} status). */
    public static final String READY = "mutator compiled";
    /**
     * Each watched once its CRD is served (Gatekeeper's own, or the installer's with --gatekeeper-compat), in the
     * version Gatekeeper v3.23 serves it: AssignImage is still only {@code v1alpha1} there.
     */
    private static final List<Resource> RESOURCES = List.of(
            new Resource(Gatekeeper.GROUP, "v1", "Assign", "assign"),
            new Resource(Gatekeeper.GROUP, "v1", "AssignMetadata", "assignmetadata"),
            new Resource(Gatekeeper.GROUP, "v1", "ModifySet", "modifyset"),
            new Resource(Gatekeeper.GROUP, "v1alpha1", "AssignImage", "assignimage"));

    @Override
    public RuleFamily family() {
        return Gatekeeper.FAMILY;
    }

    @Override
    public List<Resource> resources() {
        return RESOURCES;
    }

    @Override
    public String readyReason() {
        return READY;
    }

    @Override
    public boolean owns(JsonObject manifest) {
        return Gatekeeper.isMutator(manifest);
    }

    @Override
    public Mutator parse(JsonObject manifest) {
        return Gatekeeper.parse(manifest);
    }

    @Override
    public String id(Mutator rule) {
        return rule.id().toString();
    }

    /** The kinds its match admits; a wildcard group is any group, a wildcard kind any kind. */
    @Override
    public Optional<Set<TargetKind>> targetKinds(Mutator rule) {
        Set<GroupKind> admitted = rule.kindsAdmitted();
        if (admitted == null || admitted.stream().anyMatch(gk -> gk.kind().equals("*"))) {
            return Optional.empty();
        }
        var targets = new HashSet<TargetKind>();
        admitted.forEach(gk -> targets.add(new TargetKind(gk.group().equals("*") ? null : gk.group(), gk.kind(),
                null)));
        return Optional.of(Set.copyOf(targets));
    }

    /** Mutators never refuse. */
    @Override
    public Optional<String> refusesIn(Mutator rule) {
        return Optional.empty();
    }

    @Override
    public Compiled compile(SortedMap<String, Mutator> rules) {
        Gatekeeper.Stage stage = Gatekeeper.stage(rules.values());
        var disabled = new TreeMap<String, String>();
        rules.forEach((key, mutator) -> {
            String why = stage.conflicts().get(mutator.id());
            if (why != null) {
                disabled.put(key, why);
            }
        });
        var names = new HashSet<String>();
        rules.values().forEach(mutator -> names.add(id(mutator)));
        names.add(Gatekeeper.SYSTEM);
        return new Compiled(Optional.of(stage), disabled, Set.of(), Optional.empty(), stage.ruleCount(), names);
    }
}

package io.remold.gatekeeper;

import io.remold.engine.AdmissionRequest;
import io.remold.engine.Engine;
import io.remold.engine.MutationStage;
import io.remold.engine.RuleFamily;
import io.remold.engine.RuleOutcome;
import io.remold.engine.StageContext;
import io.remold.gatekeeper.match.Source;
import io.remold.gatekeeper.mutators.Mutable;
import io.remold.gatekeeper.mutators.MutationException;
import io.remold.gatekeeper.mutators.Mutator;
import io.remold.gatekeeper.mutators.MutatorId;
import io.remold.gatekeeper.mutators.Mutators;
import io.remold.gatekeeper.system.MutationSystem;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The module's entry point: reads Gatekeeper mutator manifests ({@code mutations.gatekeeper.sh}: Assign,
 * AssignMetadata, ModifySet, AssignImage) and runs them as a {@link MutationStage} of the engine, after the ModRule
 * Patch rules, the way Gatekeeper's mutation system does (ordered by id, repeated until nothing changes).
 */
public final class Gatekeeper {
    public static final String GROUP = "mutations.gatekeeper.sh";
    /** The versions Gatekeeper serves its mutators in; they differ only in name. */
    public static final List<String> VERSIONS = List.of("v1", "v1beta1", "v1alpha1");
    /** How outcomes name a failure of the whole stage (Gatekeeper fails a request's mutation as a whole). */
    public static final String SYSTEM = "gatekeeper-mutation";
    /** The family of the stage's outcomes, named as the webhook's warnings and audit annotation name them. */
    public static final RuleFamily FAMILY = new RuleFamily("Gatekeeper mutation", "mutated by Gatekeeper mutator(s)",
            "mutated-by");
    private static final JsonProvider JSON = JsonProvider.provider();

    private Gatekeeper() {
    }

    /** Whether a manifest belongs to this family (its apiVersion's group is {@value #GROUP}). */
    public static boolean isMutator(JsonObject manifest) {
        return manifest.get("apiVersion") instanceof JsonString v && v.getString().startsWith(GROUP + "/");
    }

    /**
     * Compiles one mutator manifest, or throws {@link io.remold.gatekeeper.mutators.InvalidMutatorException} naming
     * the field and Gatekeeper's reason.
     */
    public static Mutator parse(JsonObject manifest) {
        return Mutators.parse(manifest);
    }

    /**
     * The engine stage that runs these mutators (schema conflicts disable the mutators involved). Assign's {@code
     * externalData} asks through the engine's view of the request, so that ModRules and mutators share one request's
     * wait bound.
     */
    public static Stage stage(Collection<? extends Mutator> mutators) {
        return new Stage(MutationSystem.of(mutators));
    }

    /** Schema conflicts of a set of mutators: the disabled mutator and why. */
    public static Map<MutatorId, String> conflicts(Collection<? extends Mutator> mutators) {
        return MutationSystem.of(mutators).conflicts();
    }

    /** The engine stage of a set of mutators; {@link #conflicts()} tells which of them a schema conflict disabled. */
    public record Stage(MutationSystem system) implements MutationStage {
        /** Schema conflicts among the stage's mutators: the disabled mutator and why. */
        public Map<MutatorId, String> conflicts() {
            return system.conflicts();
        }

        @Override
        public RuleFamily family() {
            return FAMILY;
        }

        /** Why a mutator that changed the object did, when explaining: the field its location names, and that it matched. */
        private List<String> held(MutatorId id, AdmissionRequest request) {
            String location = request.explain() ? system.mutator(id).location() : null;
            return location == null ? List.of() : List.of("location " + location
                    + ": its applyTo and match select the object (Gatekeeper says no more of them)");
        }

        @Override
        public int ruleCount() {
            return system.order().size();
        }

        @Override
        public JsonObject mutate(JsonObject object, StageContext context) {
            AdmissionRequest request = context.request();
            List<RuleOutcome> outcomes = context.outcomes();
            JsonObject namespace = request.namespaceRef() instanceof JsonObject ns ? ns : null;
            var calls = new Mutable.External(context.external());
            var mutable = new Mutable(object, namespace, request.userName(), Source.Original,
                    request.operation().name(), calls);
            Map<MutatorId, List<String>> explained = request.explain() ? calls.explained() : Map.of();
            MutationSystem.Result result;
            try {
                result = system.mutate(mutable);
            } catch (MutationException | RuntimeException e) {
                String why = e.getMessage() == null ? e.toString() : e.getMessage();
                List<String> lines = explained.values().stream().flatMap(List::stream).toList();
                outcomes.add(new RuleOutcome(FAMILY, SYSTEM, 0, true, -1, null, JsonValue.EMPTY_JSON_ARRAY, why,
                        lines));
                return object;
            }
            // One outcome per mutator that changed the object, with what it changed in every pass, and what its
            // calls to external data providers answered (when explaining, also for a mutator that changed nothing).
            var applied = new LinkedHashMap<MutatorId, JsonArrayBuilder>();
            for (MutationSystem.Change change : result.changes()) {
                JsonArrayBuilder ops = applied.computeIfAbsent(change.mutator(), id -> JSON.createArrayBuilder());
                Engine.diff(change.before(), change.after()).forEach(ops::add);
            }
            explained.keySet().forEach(id -> applied.computeIfAbsent(id, none -> JSON.createArrayBuilder()));
            applied.forEach((id, ops) -> outcomes.add(new RuleOutcome(FAMILY, id.toString(), 0, true, -1, null,
                    ops.build(), null, explained.getOrDefault(id, List.of()), held(id, request))));
            return result.mutated() ? result.object() : object;
        }
    }
}

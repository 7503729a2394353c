package io.remold.rules.impact;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.RuleMode;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.engine.Rejection;
import io.remold.engine.RuleFamily;
import io.remold.engine.RuleOutcome;
import io.remold.rules.RuleAssembly;
import io.remold.rules.RuleSet;
import io.remold.rules.Snapshot;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What one rule would do to existing objects: the rule alone, enforced whatever its mode, decides each object as a
 * CREATE of the object as stored, mutation then validation on the mutated object, as the webhooks would have decided
 * it had the rule existed when the object was created. Immutable once made; {@link #evaluate} is thread-safe as the
 * engine is. The assembly, and so the families' runtimes the rule runs on, are the caller's.
 */
public final class ImpactScan {
    private final RuleFamily family;
    private final String rule;
    private final RuleMode mode;
    private final Engine engine;
    private final Map<String, String> disabled;
    private final Function<String, JsonObject> namespaces;

    /**
     * @param single     a set holding exactly one rule, of any family
     * @param mode       the rule's declared mode, as the verdicts report it
     * @param namespaces the Namespace object of a name, or null (a rule's {@code namespaceRef})
     */
    public ImpactScan(RuleAssembly assembly, RuleSet single, RuleMode mode, Function<String, JsonObject> namespaces) {
        this.mode = Objects.requireNonNull(mode, "mode");
        this.namespaces = Objects.requireNonNull(namespaces, "namespaces");
        int count = single.rules().size() + single.families().values().stream().mapToInt(Map::size).sum();
        if (count != 1) {
            throw new IllegalArgumentException("an impact scan takes one rule, not " + count);
        }
        if (single.rules().isEmpty()) {
            RuleFamily only = single.families().keySet().iterator().next();
            Family<?> owner = assembly.families().stream().filter(f -> f.family().equals(only)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no family " + only.name() + " in the assembly"));
            this.family = only;
            this.rule = id(owner, single);
        } else {
            ModRule modRule = single.rules().values().iterator().next();
            this.family = RuleFamily.MODRULE;
            this.rule = modRule.id();
        }
        // Without its controls the rule is enforced, whatever its mode: the scan asks what it would do in force.
        Snapshot snapshot = assembly.assemble(new RuleSet(single.rules(), single.families()));
        this.engine = snapshot.engine();
        this.disabled = snapshot.disabled();
    }

    private static <R> String id(Family<R> family, RuleSet single) {
        return family.id(single.familyRules(family).values().iterator().next());
    }

    /** How verdicts name the rule. */
    public String rule() {
        return rule;
    }

    public RuleFamily family() {
        return family;
    }

    /** Why the rule is not in force even alone (a kinitiras http reference no prefix allows), by key; else empty. */
    public Map<String, String> disabled() {
        return disabled;
    }

    /** The rule's verdict on one existing object, also given to {@code sink} (source EXISTING). */
    public Verdict evaluate(JsonObject object, ImpactSink sink) {
        Verdict verdict = verdict(object);
        sink.record(family, rule, mode, ImpactSink.Source.EXISTING, ObjectRef.of(object), verdict);
        return verdict;
    }

    private Verdict verdict(JsonObject object) {
        String namespace = namespaceOf(object);
        JsonValue namespaceRef = namespace.isEmpty() ? null : namespaces.apply(namespace);
        Decision mutation = engine.mutate(new AdmissionRequest(AdmissionOperation.CREATE, namespace, object, null,
                namespaceRef, null, false));
        Decision validation = mutation.allowed() ? engine.validate(new AdmissionRequest(AdmissionOperation.CREATE,
                namespace, mutation.result(), null, namespaceRef, null, false)) : mutation;
        if (!validation.allowed()) {
            return new Verdict.Refuses(validation.rejections().stream().map(ImpactScan::message)
                    .collect(Collectors.joining("; ")));
        }
        String error = mutation.outcomes().stream().map(RuleOutcome::error).filter(Objects::nonNull)
                .findFirst().orElse(null);
        if (error != null) {
            return new Verdict.Fails(error);
        }
        return mutation.patch().isEmpty() ? Verdict.UNCHANGED : new Verdict.Changes(mutation.patch());
    }

    private static String message(Rejection rejection) {
        return rejection.message() != null ? rejection.message() : rejection.toString();
    }

    private static String namespaceOf(JsonObject object) {
        return object.get("metadata") instanceof JsonObject metadata
                && metadata.get("namespace") instanceof JsonString namespace ? namespace.getString() : "";
    }
}

package io.remold.server.kube;

import io.remold.api.InvalidFieldException;
import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.ModRules;
import io.remold.api.Provider;
import io.remold.api.RuleControls;
import io.remold.engine.Family;
import io.remold.engine.RuleCompilation;
import io.remold.server.rules.RuleSink;
import jakarta.json.JsonObject;

import java.util.List;

/**
 * How a manifest of one family enters the rules: put into the sink, or taken out of it with the reason, as the Ready
 * condition its status deserves. Never half-applied: a manifest that does not load also removes its previous
 * version.
 */
interface RuleLoader {
    ReadyCondition load(RuleRef ref, JsonObject manifest, long generation, RuleSink sink);

    /** The rules of a family beside ModRules (Gatekeeper's mutators, script rules). */
    static <R> RuleLoader of(Family<R> family) {
        return (ref, manifest, generation, sink) -> {
            R rule;
            RuleControls controls;
            try {
                rule = family.parse(manifest);
                controls = RuleControls.read(manifest, family.canRefuse(rule));
            } catch (InvalidFieldException e) {
                sink.remove(ref.key());
                return ReadyCondition.invalid(e.getMessage(), generation);
            }
            return sink.put(ref.key(), family, rule, controls)
                    .map(refusal -> ReadyCondition.invalid(refusal, generation))
                    .orElseGet(() -> ReadyCondition.ready(family.readyReason(), generation));
        };
    }

    /**
     * ModRules of {@code remold.io} and {@code api.kubemod.io}; one that a family claims (a ModRule of type Script is
     * a script rule) is that family's.
     */
    static RuleLoader modRules(List<Family<?>> families) {
        return (ref, manifest, generation, sink) -> {
            for (Family<?> family : families) {
                if (family.owns(manifest)) {
                    return of(family).load(ref, manifest, generation, sink);
                }
            }
            ModRule rule;
            try {
                rule = ModRules.fromJson(manifest, "ModRule " + ref);
            } catch (ModRuleException e) {
                sink.remove(ref.key());
                return ReadyCondition.of(e, generation);
            }
            // The reader checked the rule's controls: reading them again cannot fail.
            RuleCompilation compilation = sink.put(ref.key(), rule, RuleControls.read(manifest));
            return ReadyCondition.of(compilation, generation);
        };
    }

    /** remold.io external data Providers: in force as soon as read (no compilation). */
    RuleLoader PROVIDERS = (ref, manifest, generation, sink) -> {
        try {
            sink.putProvider(ref.key(), Provider.fromJson(manifest, "Provider " + ref.name()));
            return ReadyCondition.ready(ReadyCondition.PROVIDER_READY, generation);
        } catch (ModRuleException e) {
            sink.remove(ref.key());
            return ReadyCondition.of(e, generation);
        }
    };
}

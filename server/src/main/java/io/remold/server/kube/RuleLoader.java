package io.remold.server.kube;

import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.ModRules;
import io.remold.api.Provider;
import io.remold.engine.RuleCompilation;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.gatekeeper.mutators.InvalidMutatorException;
import io.remold.scripting.InvalidScriptException;
import io.remold.scripting.Scripts;
import io.remold.server.rules.RuleSink;
import jakarta.json.JsonObject;

/**
 * How a manifest of one family enters the rules: put into the sink, or taken out of it with the reason, as the Ready
 * condition its status deserves. Never half-applied: a manifest that does not load also removes its previous
 * version.
 */
interface RuleLoader {
    String GATEKEEPER_GROUP = Gatekeeper.GROUP;

    ReadyCondition load(RuleRef ref, JsonObject manifest, long generation, RuleSink sink);

    /** js-admissions-controller's JsAdmission and ClusterJsAdmission, and {@code remold.io} ModRules of type Script. */
    RuleLoader SCRIPTS = (ref, manifest, generation, sink) -> {
        try {
            sink.putScript(ref.key(), Scripts.parse(manifest));
            return ReadyCondition.ready(ReadyCondition.SCRIPT_READY, generation);
        } catch (InvalidScriptException e) {
            sink.remove(ref.key());
            return ReadyCondition.invalid(e.getMessage(), generation);
        }
    };

    /** ModRules of {@code remold.io} and {@code api.kubemod.io}; one of type Script is a script rule. */
    RuleLoader MODRULES = (ref, manifest, generation, sink) -> {
        if (Scripts.isScript(manifest)) {
            return SCRIPTS.load(ref, manifest, generation, sink);
        }
        ModRule rule;
        try {
            rule = ModRules.fromJson(manifest, "ModRule " + ref);
        } catch (ModRuleException e) {
            sink.remove(ref.key());
            return ReadyCondition.of(e, generation);
        }
        RuleCompilation compilation = sink.put(ref.key(), rule);
        return ReadyCondition.of(compilation, generation);
    };

    /** Gatekeeper's Assign, AssignMetadata, ModifySet and AssignImage. */
    RuleLoader MUTATORS = (ref, manifest, generation, sink) -> {
        try {
            sink.putMutator(ref.key(), Gatekeeper.parse(manifest));
            return ReadyCondition.ready(ReadyCondition.MUTATOR_READY, generation);
        } catch (InvalidMutatorException e) {
            sink.remove(ref.key());
            return ReadyCondition.invalid(e.getMessage(), generation);
        }
    };

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

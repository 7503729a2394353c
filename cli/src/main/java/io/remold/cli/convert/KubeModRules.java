package io.remold.cli.convert;

import io.remold.api.ModRule;
import io.remold.api.ModRuleSpec;
import io.remold.api.PatchOperation;
import io.remold.engine.convert.Conversion;
import io.remold.templating.Templates;

import java.util.List;

/**
 * An {@code api.kubemod.io} ModRule as the {@code remold.io} rule the engine runs in its place: the same model, with
 * Go templates translated to Mustache as the engine translates them when it loads the rule, and KubeMod's system
 * namespace ({@code kubemod-system}) mapped to Remold's, where a rule is cluster-wide in the same way.
 */
final class KubeModRules {
    static final String KUBEMOD_SYSTEM_NAMESPACE = "kubemod-system";

    private KubeModRules() {
    }

    /** A {@code remold.io} rule as it is; a KubeMod rule translated, or refused when it has no equivalent. */
    static Conversion convert(ModRule rule, String systemNamespace) {
        if (!rule.isKubeMod()) {
            return new Conversion.Converted(List.of(rule));
        }
        String namespace = rule.namespace();
        if (systemNamespace.equals(namespace)) {
            return new Conversion.Refused("the rule is in namespace " + namespace + ", where a KubeMod rule applies"
                    + " to that namespace's objects only but a remold.io rule is cluster-wide (Remold's system"
                    + " namespace)");
        }
        if (KUBEMOD_SYSTEM_NAMESPACE.equals(namespace)) {
            namespace = systemNamespace;
        }
        ModRuleSpec spec = rule.spec();
        var patch = spec.patch().stream().map(op -> new PatchOperation(op.op(), op.select(), op.path(),
                op.value() == null ? null : Templates.translateGoTemplate(op.value()))).toList();
        String rejectMessage = spec.rejectMessage() == null ? null : Templates.translateGoTemplate(spec.rejectMessage());
        return Conversion.checked(List.of(new ModRule(ModRule.REMOLD_API_VERSION, namespace, rule.name(),
                new ModRuleSpec(spec.type(), spec.admissionOperations(), spec.executionTier(),
                        spec.targetNamespaceRegex(), rejectMessage, spec.match(), patch))));
    }
}

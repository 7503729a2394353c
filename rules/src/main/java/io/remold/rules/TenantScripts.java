package io.remold.rules;

import io.remold.scripting.ScriptRule;
import io.remold.scripting.Scripts;

import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which namespaces' own script rules may run (the server's {@code tenant-scripts} option): JavaScript runs inside
 * the webhook's process, so a tenant's script is opt-in per namespace. Rules of the system namespace, cluster-wide
 * {@code ClusterJsAdmission}s and rules from a file without a namespace (the administrator's) always may.
 */
public record TenantScripts(Set<String> namespaces, boolean all) {
    /** The option's name, as the refusal names it. */
    public static final String OPTION = "tenant-scripts";
    /** No tenant namespace may run scripts (the default). */
    public static final TenantScripts NONE = new TenantScripts(Set.of(), false);

    public TenantScripts {
        namespaces = Set.copyOf(namespaces);
    }

    /** {@code none} (or empty), {@code *} (every namespace), or namespaces comma-separated. */
    public static TenantScripts parse(String option) {
        Set<String> names = Arrays.stream(option.split(",")).map(String::strip)
                .filter(n -> !n.isEmpty() && !"none".equals(n)).collect(Collectors.toSet());
        return names.contains("*") ? new TenantScripts(Set.of(), true) : new TenantScripts(names, false);
    }

    /**
     * Why {@code rule} may not run, or empty when it may; {@code namespace} is where the rule lives (its own, or the
     * request's for a manifest that names none; null or empty: a file's rule without one).
     */
    public Optional<String> refusal(ScriptRule rule, String namespace, String systemNamespace) {
        if (all || namespace == null || namespace.isEmpty() || namespace.equals(systemNamespace)
                || rule.kind().equals(Scripts.CLUSTER) || namespaces.contains(namespace)) {
            return Optional.empty();
        }
        return Optional.of(rule.kind() + " " + namespace + "/" + rule.name() + " is refused: JavaScript rules of"
                + " namespace " + namespace + " are not enabled (the server's " + OPTION + " option, REMOLD_"
                + OPTION.toUpperCase(java.util.Locale.ROOT).replace('-', '_') + ", does not name it; script rules"
                + " run in the admission server's process)");
    }
}

package io.remold.scripting;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One script rule as read from its manifest: a {@code JsAdmission} (namespaced: applies to objects of its own
 * namespace), a {@code ClusterJsAdmission} (every namespace and cluster-scoped objects), or a {@code remold.io}
 * ModRule of {@code type: Script} (scoped like a ModRule). {@code kinds} are the resources (plural, lowercase, as
 * {@code pods}) the rule admits and whose events it receives; empty: every kind, no events. {@code functions} maps
 * each managed function the script declares ({@code jsa_mutate}, ...) to its parameter names in order.
 */
public record ScriptRule(String kind, String namespace, String name, List<String> kinds, String js,
                         Map<String, List<String>> functions) {
    public ScriptRule {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        kinds = List.copyOf(kinds);
        functions = Map.copyOf(functions);
    }

    /** {@code Kind/namespace/name}, or {@code Kind/name} for a cluster-wide rule: how outcomes and logs name it. */
    public String id() {
        return namespace == null ? kind + "/" + name : kind + "/" + namespace + "/" + name;
    }

    /**
     * Whether the rule applies to objects of every namespace (and cluster-scoped ones) and hears of their events: a
     * {@code ClusterJsAdmission}, or a rule read without a namespace.
     */
    public boolean clusterWide() {
        return namespace == null || kind.equals(Scripts.CLUSTER);
    }

    /** Whether the script declares the managed function {@code name}. */
    public boolean has(String function) {
        return functions.containsKey(function);
    }
}

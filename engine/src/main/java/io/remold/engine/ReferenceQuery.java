package io.remold.engine;

import io.remold.api.Reference;

/**
 * One look-up of a rule's reference. {@code namespace} is where to look: always the rule's own namespace for a
 * namespaced rule. Exactly one of {@code name} and {@code selector} is set. {@code clusterWide} is true for rules in
 * the system namespace (and rules read from files without a namespace), the only ones that may read cluster-scoped
 * kinds.
 */
public record ReferenceQuery(String rule, String reference, String apiVersion, String kind, String namespace,
                             String name, Reference.Selector selector, boolean clusterWide) {
    /** {@code v1 ConfigMap shop/settings}, {@code apps/v1 Deployment shop/[selector]}, for messages. */
    public String describe() {
        String where = namespace == null || namespace.isEmpty() ? "" : namespace + "/";
        return apiVersion + " " + kind + " " + where + (name != null ? name : "(" + selectorText() + ")");
    }

    private String selectorText() {
        var parts = new java.util.ArrayList<String>();
        selector.matchLabels().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
                .forEach(e -> parts.add(e.getKey() + "=" + e.getValue()));
        for (Reference.Requirement r : selector.matchExpressions()) {
            parts.add(r.key() + " " + r.operator() + (r.values().isEmpty() ? "" : " " + r.values()));
        }
        return parts.isEmpty() ? "every object" : String.join(",", parts);
    }
}

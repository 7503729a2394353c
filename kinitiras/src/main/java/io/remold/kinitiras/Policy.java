package io.remold.kinitiras;

import java.util.List;
import java.util.Objects;

/**
 * One compiled kinitiras policy, immutable: its kind, where it lives ({@code namespace} null for the cluster kinds),
 * which objects it selects and its rules (override rules for the override kinds, validate rules for
 * ClusterValidatePolicy), and the references its templates fetch.
 */
public record Policy(Kind kind, String namespace, String name, List<ResourceSelector> selectors,
                     List<OverrideRule> overrideRules, List<ValidateRule> validateRules,
                     List<FetchedReference> references) {
    public Policy {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        selectors = List.copyOf(selectors);
        overrideRules = List.copyOf(overrideRules);
        validateRules = List.copyOf(validateRules);
        references = List.copyOf(references);
    }

    /** The three kinds of {@code policy.kcloudlabs.io/v1alpha1}, with their plurals. */
    public enum Kind {
        OverridePolicy("overridepolicies"),
        ClusterOverridePolicy("clusteroverridepolicies"),
        ClusterValidatePolicy("clustervalidatepolicies");

        private final String plural;

        Kind(String plural) {
            this.plural = plural;
        }

        public String plural() {
            return plural;
        }

        boolean namespaced() {
            return this == OverridePolicy;
        }
    }

    /** {@code Kind/name} or {@code Kind/namespace/name}: how outcomes, warnings and audit annotations name it. */
    public String id() {
        return namespace == null ? kind + "/" + name : kind + "/" + namespace + "/" + name;
    }

    /** Cluster-scoped policies are an administrator's: they may read other namespaces' objects. */
    boolean clusterWide() {
        return namespace == null;
    }
}

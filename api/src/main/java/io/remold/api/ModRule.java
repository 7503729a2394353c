package io.remold.api;

import java.util.Objects;

/**
 * A ModRule as read from YAML/JSON or from the API server. {@code namespace} is {@code null} when the source did
 * not say: the rule then counts as deployed in the namespace of the object being evaluated.
 */
public record ModRule(String apiVersion, String namespace, String name, String uid, String resourceVersion,
                      long generation, ModRuleSpec spec) {
    public static final String REMOLD_API_VERSION = "remold.io/v1beta1";
    public static final String KUBEMOD_API_VERSION = "api.kubemod.io/v1beta1";

    public ModRule {
        Objects.requireNonNull(apiVersion, "apiVersion");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(spec, "spec");
    }

    public ModRule(String apiVersion, String namespace, String name, ModRuleSpec spec) {
        this(apiVersion, namespace, name, null, null, 0, spec);
    }

    /** KubeMod rules carry Go templates and belong to KubeMod's system namespace. */
    public boolean isKubeMod() {
        return KUBEMOD_API_VERSION.equals(apiVersion);
    }

    /** {@code namespace/name}, or just the name when the namespace is not set. */
    public String id() {
        return namespace == null ? name : namespace + "/" + name;
    }
}

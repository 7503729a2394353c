package io.remold.server.kube;

import io.remold.gatekeeper.Gatekeeper;

/** One rule object of the API server: {@code group/version}, resource (plural), namespace and name. */
record RuleRef(String group, String version, String plural, String namespace, String name) {
    /**
     * The RuleSink key, for example {@code remold.io/v1beta1/modrules/team-a/add-label}; a cluster-scoped rule (a
     * Gatekeeper mutator) has an empty namespace: {@code mutations.gatekeeper.sh/v1/assign//set-policy}.
     */
    String key() {
        return group + "/" + version + "/" + plural + "/" + (namespace == null ? "" : namespace) + "/" + name;
    }

    /** Gatekeeper's mutators: their status has Gatekeeper's {@code byPod} besides the Ready condition. */
    boolean isGatekeeperMutator() {
        return Gatekeeper.GROUP.equals(group);
    }

    @Override
    public String toString() {
        return key();
    }
}

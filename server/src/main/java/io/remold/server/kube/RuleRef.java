package io.remold.server.kube;

/** One ModRule object of the API server: {@code group/version}, namespace and name. */
record RuleRef(String group, String version, String namespace, String name) {
    /** The RuleSink key, for example {@code remold.io/v1beta1/team-a/add-label}. */
    String key() {
        return group + "/" + version + "/" + namespace + "/" + name;
    }

    @Override
    public String toString() {
        return key();
    }
}

package io.remold.server.kube;

/** Writes the Ready condition of a ModRule through its status subresource. */
interface StatusWriter {
    void write(RuleRef rule, ReadyCondition condition, String lastTransitionTime);
}

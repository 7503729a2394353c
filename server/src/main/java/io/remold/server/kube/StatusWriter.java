package io.remold.server.kube;

/** Writes the Ready condition of a rule through its status subresource, in the background. */
interface StatusWriter {
    void write(RuleRef rule, ReadyCondition condition, String lastTransitionTime);
}

package io.remold.api;

/** Kubernetes admission operations. CONNECT reaches the webhook but cannot be named in a rule. */
public enum AdmissionOperation {
    CREATE, UPDATE, DELETE, CONNECT;

    /** Whether {@code spec.admissionOperations} may list this operation. */
    public boolean allowedInRules() {
        return this != CONNECT;
    }
}

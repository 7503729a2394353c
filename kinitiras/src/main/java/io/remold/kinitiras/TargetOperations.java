package io.remold.kinitiras;

import io.remold.api.AdmissionOperation;

import java.util.Set;

/** A rule's {@code targetOperations}: empty targets every operation, as in kinitiras's managers. */
record TargetOperations(Set<AdmissionOperation> listed) {
    TargetOperations {
        listed = Set.copyOf(listed);
    }

    boolean targets(AdmissionOperation operation) {
        return listed.isEmpty() || listed.contains(operation);
    }
}

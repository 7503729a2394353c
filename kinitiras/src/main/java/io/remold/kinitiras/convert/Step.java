package io.remold.kinitiras.convert;

import io.remold.api.AdmissionOperation;
import io.remold.api.PatchOperation;

import java.util.List;

/**
 * One ModRule a policy converts to, before it is named and placed in a tier: the match items it adds to the
 * policy's selection, its operations and patch (none for a Reject rule, whose {@code rejectMessage} it has), and
 * the locations its patch writes ({@code writes}), which no later rule's selection may read.
 */
record Step(List<String> match, List<AdmissionOperation> operations, List<PatchOperation> patch,
            String rejectMessage, List<List<String>> writes) {
    Step {
        match = List.copyOf(match);
        operations = List.copyOf(operations);
        patch = List.copyOf(patch);
        writes = List.copyOf(writes);
    }

    /** Whether one of {@code reads} can be changed by this step: a write at, above or below it. */
    boolean writesAny(List<List<String>> reads) {
        return writes.stream().anyMatch(w -> reads.stream()
                .anyMatch(r -> KnownShape.startsWith(w, r) || KnownShape.startsWith(r, w)));
    }
}

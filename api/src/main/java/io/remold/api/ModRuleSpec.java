package io.remold.api;

import java.util.List;
import java.util.Objects;

/** {@code spec} of a ModRule, with KubeMod's defaults applied (CREATE+UPDATE, tier 0). */
public record ModRuleSpec(RuleType type, List<AdmissionOperation> admissionOperations, int executionTier,
                          String targetNamespaceRegex, String rejectMessage, List<MatchItem> match,
                          List<PatchOperation> patch, List<Reference> references) {
    public static final int MIN_TIER = -32767;
    public static final int MAX_TIER = 32766;

    public ModRuleSpec {
        Objects.requireNonNull(type, "type");
        admissionOperations = admissionOperations == null || admissionOperations.isEmpty()
                ? List.of(AdmissionOperation.CREATE, AdmissionOperation.UPDATE)
                : List.copyOf(admissionOperations);
        match = match == null ? List.of() : List.copyOf(match);
        patch = patch == null ? List.of() : List.copyOf(patch);
        references = references == null ? List.of() : List.copyOf(references);
    }

    /** A rule without references. */
    public ModRuleSpec(RuleType type, List<AdmissionOperation> admissionOperations, int executionTier,
                       String targetNamespaceRegex, String rejectMessage, List<MatchItem> match,
                       List<PatchOperation> patch) {
        this(type, admissionOperations, executionTier, targetNamespaceRegex, rejectMessage, match, patch, List.of());
    }
}

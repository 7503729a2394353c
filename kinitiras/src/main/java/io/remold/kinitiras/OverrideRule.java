package io.remold.kinitiras;

import java.util.List;

/**
 * One entry of {@code overrideRules}: the operations it targets and its overrider forms in the order kinitiras applies
 * them (template, cue, then origin or else plaintext), each on the previous one's result.
 */
record OverrideRule(TargetOperations operations, List<Overrider> forms) {
    OverrideRule {
        forms = List.copyOf(forms);
    }
}

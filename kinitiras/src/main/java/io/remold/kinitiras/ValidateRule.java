package io.remold.kinitiras;

import java.util.List;

/** One entry of {@code validateRules}: the operations it targets and its forms (template, then cue). */
record ValidateRule(TargetOperations operations, List<Validator> forms) {
    ValidateRule {
        forms = List.copyOf(forms);
    }
}

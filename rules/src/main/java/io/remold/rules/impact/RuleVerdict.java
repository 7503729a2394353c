package io.remold.rules.impact;

import io.remold.engine.RuleFamily;

/** One rule's verdict on one object, the rule named as its outcomes name it. */
public record RuleVerdict(RuleFamily family, String rule, Verdict verdict) {
}

package io.remold.rules.impact;

import io.remold.api.RuleMode;
import io.remold.engine.RuleFamily;

/**
 * Where verdicts go: the server's metrics and reports, {@code preview}'s table. Called for every object a rule was
 * evaluated against (verdict {@code Unchanged} too, so that counts are complete); must not block the caller for long
 * (the server's is called off the admission path but on a bounded worker) and must be thread-safe.
 *
 * @param rule   the rule as outcomes name it ({@code Family.id}, a ModRule's {@code namespace/name})
 * @param source where the object came from: an admission request or an existing object
 */
public interface ImpactSink {
    void record(RuleFamily family, String rule, RuleMode mode, Source source, ObjectRef object, Verdict verdict);

    enum Source { ADMISSION, EXISTING }

    ImpactSink NONE = (family, rule, mode, source, object, verdict) -> { };
}

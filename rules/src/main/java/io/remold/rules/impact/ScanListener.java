package io.remold.rules.impact;

import io.remold.engine.RuleFamily;

/**
 * Told when an impact scan of a rule's existing objects begins and ends, around the verdicts it gives an
 * {@link ImpactSink}: a scan replaces what the previous scan of that rule recorded (reports, status).
 */
public interface ScanListener {
    void began(RuleFamily family, String rule);

    /** {@code complete}: every object was evaluated (false: the scan stopped, for a new one or a lost lease). */
    void ended(RuleFamily family, String rule, boolean complete);

    ScanListener NONE = new ScanListener() {
        @Override
        public void began(RuleFamily family, String rule) {
        }

        @Override
        public void ended(RuleFamily family, String rule, boolean complete) {
        }
    };
}

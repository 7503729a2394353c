package io.remold.rules.impact;

/**
 * Told when an impact scan of a rule begins and ends, beside the {@link ImpactSink} that receives its verdicts: a
 * scan restarts the rule's {@link ImpactSink.Source#EXISTING EXISTING} verdicts (a report drops those of the previous
 * scan when the next one begins). Must be thread-safe and return at once.
 *
 * @see ImpactSink
 */
public interface ScanListener {
    /** A scan of {@code rule} (as outcomes name it) begins: what earlier scans recorded no longer holds. */
    void began(String rule);

    /** The scan of {@code rule} went over every object it matches. */
    void ended(String rule);

    ScanListener NONE = new ScanListener() {
        @Override
        public void began(String rule) {
        }

        @Override
        public void ended(String rule) {
        }
    };
}

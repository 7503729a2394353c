package io.remold.api;

import java.util.Arrays;
import java.util.Optional;

/**
 * How a rule's decisions take effect: {@code Enforce} (patches and refusals apply), {@code Shadow} (the rule is
 * evaluated on every request it matches and what it would have done is recorded; it never patches or refuses), and
 * {@code Warn} (a rule that refuses admits instead, with a warning naming it). Written as in manifests.
 */
public enum RuleMode {
    ENFORCE("Enforce"), SHADOW("Shadow"), WARN("Warn");

    private final String written;

    RuleMode(String written) {
        this.written = written;
    }

    /** As manifests, statuses and metrics write it. */
    public String written() {
        return written;
    }

    /** The mode written {@code text} (exact case), if any. */
    public static Optional<RuleMode> of(String text) {
        return Arrays.stream(values()).filter(mode -> mode.written.equals(text)).findFirst();
    }
}

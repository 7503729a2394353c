package io.remold.api;

import java.util.Arrays;
import java.util.Optional;

/**
 * What a rule does to the objects that exist when it is created or changed: {@code Ignore} (the impact on them is
 * only recorded) or {@code Apply} (once the rule is enforced, the leader also applies its patch to them through
 * server-side apply). Written as in manifests.
 */
public enum ExistingPolicy {
    IGNORE("Ignore"), APPLY("Apply");

    private final String written;

    ExistingPolicy(String written) {
        this.written = written;
    }

    /** As manifests and statuses write it. */
    public String written() {
        return written;
    }

    /** The policy written {@code text} (exact case), if any. */
    public static Optional<ExistingPolicy> of(String text) {
        return Arrays.stream(values()).filter(policy -> policy.written.equals(text)).findFirst();
    }
}

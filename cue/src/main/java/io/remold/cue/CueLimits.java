package io.remold.cue;

import java.time.Duration;

/**
 * The bounds of the CUE workers: how many run at once ({@code workers}, each one evaluation at a time) and how many
 * evaluations may wait for one ({@code queue}, beyond which a call fails at once); each worker's memory; the largest
 * answer; how long a compile may take; and how long a policy whose evaluation overran its deadline or killed its
 * worker fails at once without running.
 */
public record CueLimits(int workers, int queue, long memoryBytes, int maxOutputBytes, Duration compileTimeout,
                        Duration quarantine) {
    /** Small, for two cores: two workers of 256 MiB. */
    public static final CueLimits DEFAULT = new CueLimits(2, 64, 256L << 20, 4 << 20, Duration.ofSeconds(5),
            Duration.ofSeconds(30));

    public CueLimits {
        if (workers < 1 || queue < 0 || memoryBytes < 64L << 20 || maxOutputBytes < 1024) {
            throw new IllegalArgumentException("CUE limits out of range: " + workers + " workers, queue " + queue
                    + ", " + memoryBytes + " bytes of memory, " + maxOutputBytes + " bytes of output");
        }
    }
}

package io.remold.cue;

import java.time.Duration;

/**
 * The bounds of the CUE workers: how many run at once ({@code workers}, each one evaluation at a time); how many
 * evaluations may wait for one, beyond which a call fails at once ({@code queue} for the tenants' together and as many
 * for the administrator's, {@code queuePerTenant} for one tenant's); each worker's memory; the largest answer; how
 * long a compile may take; and how long a policy whose evaluation overran its deadline or killed its worker fails at
 * once without running. How the workers are shared between tenants: {@link FairShare}.
 */
public record CueLimits(int workers, int queue, int queuePerTenant, long memoryBytes, int maxOutputBytes,
                        Duration compileTimeout, Duration quarantine) {
    /** Small, for two cores: two workers of 256 MiB; four tenants' waiting evaluations fill the tenants' queue. */
    public static final CueLimits DEFAULT = new CueLimits(2, 64, 16, 256L << 20, 4 << 20, Duration.ofSeconds(5),
            Duration.ofSeconds(30));

    public CueLimits {
        if (workers < 1 || queue < 0 || queuePerTenant < 0 || queuePerTenant > queue || memoryBytes < 64L << 20
                || maxOutputBytes < 1024) {
            throw new IllegalArgumentException("CUE limits out of range: " + workers + " workers, queue " + queue
                    + " (" + queuePerTenant + " per tenant), " + memoryBytes + " bytes of memory, " + maxOutputBytes
                    + " bytes of output");
        }
    }
}

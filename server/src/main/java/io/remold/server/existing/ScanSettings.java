package io.remold.server.existing;

import java.time.Duration;

/**
 * How impact scans run (server configuration {@code impact-*}).
 *
 * @param rate           objects decided per second, at most
 * @param rescanInterval how often a rule that applies to existing objects is scanned again, so that a field changed
 *                       back is noticed; also when a scan that failed or was forbidden is tried again
 * @param samples        verdicts kept as examples in a rule's status (and as many conflicts)
 * @param patchBytes     the longest patch text a sample keeps
 * @param pageSize       objects per LIST page
 */
public record ScanSettings(double rate, Duration rescanInterval, int samples, int patchBytes, int pageSize) {
    public static final int PATCH_BYTES = 2048;
    public static final int PAGE_SIZE = 250;

    public ScanSettings {
        if (!(rate > 0)) {
            throw new IllegalArgumentException("impact-rate must be positive: " + rate);
        }
        if (!rescanInterval.isPositive()) {
            throw new IllegalArgumentException("impact-rescan-interval-seconds must be positive: "
                    + rescanInterval.toSeconds());
        }
        if (samples < 0 || samples > 100) {
            throw new IllegalArgumentException("impact-samples must be between 0 and 100: " + samples);
        }
        if (patchBytes < 1 || pageSize < 1) {
            throw new IllegalArgumentException("patch bytes and page size must be positive");
        }
    }
}

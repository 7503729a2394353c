package io.remold.server.reports;

import java.time.Duration;

/**
 * The server's report settings (cluster mode).
 *
 * @param enabled  whether the leader writes reports (the installer's {@code --reports} installs their CRDs)
 * @param limits   their bounds
 * @param interval how often a report that changed is written, at most
 */
public record ReportOptions(boolean enabled, ReportLimits limits, Duration interval) {
    public ReportOptions {
        if (interval.toSeconds() < 1) {
            throw new IllegalArgumentException("report-interval-seconds must be at least 1: " + interval.toSeconds());
        }
    }
}

package io.remold.server.reports;

/**
 * The bounds of the reports, on the product: what one report holds, what all of them hold, and so what the
 * aggregator keeps in memory and what the reports can take of etcd (docs/reports.md gives the numbers).
 *
 * @param resultsPerReport the objects a report lists (the first ones the rule would change, refuse or failed on)
 * @param bytesPerResult   the largest result (JSON bytes): a longer patch or message is truncated with a marker
 * @param bytesPerReport   the largest report (JSON bytes), far under etcd's 1.5 MiB per object
 * @param bytesTotal       the results of all reports together (JSON bytes): the aggregator's memory and the reports'
 *                         share of etcd
 * @param reportsTotal     namespaced Reports in all (one per rule and namespace); past it, further namespaces are
 *                         folded into the rule's ClusterReport counts
 */
public record ReportLimits(int resultsPerReport, int bytesPerResult, int bytesPerReport, long bytesTotal,
                           int reportsTotal) {
    /** Room a report keeps for its metadata and summary beside its results. */
    static final int REPORT_OVERHEAD = 8 * 1024;
    /** The most results a report may be configured to list. */
    static final int MAX_RESULTS_PER_REPORT = 1000;
    public static final int DEFAULT_RESULTS_PER_REPORT = 50;
    public static final ReportLimits DEFAULT = new ReportLimits(DEFAULT_RESULTS_PER_REPORT, 4 * 1024, 256 * 1024,
            32L * 1024 * 1024, 10_000);

    public ReportLimits {
        if (resultsPerReport < 0 || resultsPerReport > MAX_RESULTS_PER_REPORT) {
            throw new IllegalArgumentException("report-results must be between 0 and " + MAX_RESULTS_PER_REPORT
                    + ": " + resultsPerReport);
        }
        if (bytesPerResult < 512 || bytesPerReport < REPORT_OVERHEAD + bytesPerResult
                || bytesPerReport > 1024 * 1024 || bytesTotal < bytesPerReport || reportsTotal < 1) {
            throw new IllegalArgumentException("inconsistent report limits: " + this);
        }
    }

    /** These limits listing {@code results} objects per report. */
    public ReportLimits withResultsPerReport(int results) {
        return new ReportLimits(results, bytesPerResult, bytesPerReport, bytesTotal, reportsTotal);
    }
}

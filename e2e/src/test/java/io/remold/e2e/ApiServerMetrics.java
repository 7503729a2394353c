package io.remold.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The API server's own Prometheus metrics ({@code kubectl get --raw /metrics}): what it measured of the webhooks,
 * compared between two scrapes.
 */
record ApiServerMetrics(Map<String, Double> series) {
    static final String WEBHOOK_DURATION = "apiserver_admission_webhook_admission_duration_seconds";

    /** The kind cluster's API server. */
    static ApiServerMetrics scrape() {
        return parse(Kind.kubectl("get", "--raw", "/metrics").run().orFail().stdout());
    }

    /** The control plane's API server ({@code e2e/control-plane.sh}). */
    static ApiServerMetrics scrapeControlPlane() {
        return parse(Cluster.kubectl("get", "--raw", "/metrics").run().orFail().stdout());
    }

    private static ApiServerMetrics parse(String text) {
        var series = new HashMap<String, Double>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String value = line.substring(space + 1);
            series.put(line.substring(0, space), switch (value) {
                case "+Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                default -> Double.parseDouble(value); // NaN parses as it is
            });
        }
        return new ApiServerMetrics(series);
    }

    /** The sum of every series of a metric whose labels contain all the given {@code name="value"} pairs. */
    double sum(String metric, String... labels) {
        return select(metric, labels).stream().mapToDouble(e -> e.getValue()).sum();
    }

    private List<Map.Entry<String, Double>> select(String metric, String... labels) {
        Predicate<String> wanted = key -> {
            if (!key.startsWith(metric + "{") && !key.equals(metric)) {
                return false;
            }
            for (String label : labels) {
                if (!key.contains(label)) {
                    return false;
                }
            }
            return true;
        };
        return series.entrySet().stream().filter(e -> wanted.test(e.getKey())).toList();
    }

    /** What this scrape counted beyond an earlier one. */
    double delta(ApiServerMetrics before, String metric, String... labels) {
        return sum(metric, labels) - before.sum(metric, labels);
    }

    /** The webhook latency histogram of one webhook's CREATE admissions between two scrapes. */
    Histogram webhookLatency(ApiServerMetrics before, String webhook) {
        var buckets = new TreeMap<Double, Double>();
        for (var entry : select(WEBHOOK_DURATION + "_bucket", "name=\"" + webhook + "\"", "operation=\"CREATE\"")) {
            String key = entry.getKey();
            int at = key.indexOf("le=\"") + 4;
            String le = key.substring(at, key.indexOf('"', at));
            double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
            double earlier = before.series.getOrDefault(key, 0.0);
            buckets.merge(bound, entry.getValue() - earlier, Double::sum);
        }
        return new Histogram(buckets);
    }

    /** Cumulative buckets (upper bound in seconds to count), as Prometheus keeps them. */
    record Histogram(TreeMap<Double, Double> buckets) {
        double count() {
            return buckets.isEmpty() ? 0 : buckets.lastEntry().getValue();
        }

        /** Prometheus' histogram_quantile: linear within the bucket that holds the rank, in seconds. */
        double quantile(double q) {
            double rank = q * count();
            double lower = 0;
            double below = 0;
            for (var bucket : buckets.entrySet()) {
                if (bucket.getValue() >= rank) {
                    double upper = bucket.getKey();
                    if (Double.isInfinite(upper)) {
                        return lower;
                    }
                    double inBucket = bucket.getValue() - below;
                    return inBucket == 0 ? upper : lower + (upper - lower) * (rank - below) / inBucket;
                }
                lower = bucket.getKey();
                below = bucket.getValue();
            }
            return Double.NaN;
        }

        /** The buckets as "≤ 5 ms: 1234" lines, for the record. */
        List<String> describe() {
            var lines = new ArrayList<String>();
            double below = 0;
            for (var bucket : buckets.entrySet()) {
                lines.add("le " + bucket.getKey() + " s: " + (long) (bucket.getValue() - below));
                below = bucket.getValue();
            }
            return lines;
        }
    }
}

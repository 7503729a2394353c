package io.remold.e2e;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import java.util.ArrayList;
import java.util.List;

/** The OpenReports objects the leader writes (docs/reports.md), found by the rule they are about. */
final class Reports {
    static final String REPORTS = "reports.openreports.io";
    static final String CLUSTER_REPORTS = "clusterreports.openreports.io";

    private Reports() {
    }

    /** The Report of a ModRule ({@code namespace/name}) in a namespace, null while there is none. */
    static JsonObject report(String rule, String namespace) {
        return ofRule(rule, REPORTS, "-n", namespace);
    }

    /** The ClusterReport of a ModRule ({@code namespace/name}): its totals; null while there is none. */
    static JsonObject clusterReport(String rule) {
        return ofRule(rule, CLUSTER_REPORTS);
    }

    /** A report's summary count of one result value ({@code pass}, {@code fail}, ...). */
    static long summary(JsonObject report, String result) {
        return report.getAsJsonObject("summary").get(result).getAsLong();
    }

    private static JsonObject ofRule(String rule, String resource, String... namespace) {
        var args = new ArrayList<>(List.of("get", resource, "-l",
                "app.kubernetes.io/managed-by=remold,remold.io/family=modrule", "-o", "json"));
        args.addAll(List.of(namespace));
        String json = Cluster.kubectl(args.toArray(String[]::new)).run().orFail().stdout();
        for (JsonElement item : JsonParser.parseString(json).getAsJsonObject().getAsJsonArray("items")) {
            JsonObject report = item.getAsJsonObject();
            JsonElement id = report.getAsJsonObject("metadata").getAsJsonObject("annotations").get("remold.io/rule");
            if (id != null && id.getAsString().equals(rule)) {
                return report;
            }
        }
        return null;
    }
}

package io.remold.e2e;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * Issue 27, reports (docs/reports.md): a Shadow rule changes nothing, and the leader's OpenReports Report in the
 * object's namespace shows the exact patch it would have applied, its ClusterReport the rule's totals; deleting the
 * rule deletes both. The installation has the bundle's {@code --reports} (the CRDs and RBAC) and a server writing
 * each report at most once a second.
 */
@ExtendWith(Remold.class)
class ReportsIT {
    private static final String NAMESPACE = "e2e-reports";
    private static final String RULE = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: shadow-team
              namespace: e2e-reports
              annotations:
                remold.io/mode: Shadow
            spec:
              type: Patch
              match:
                - select: '$.kind'
                  matchValue: ConfigMap
              patch:
                - op: add
                  path: /metadata/labels/team
                  value: blue
            """;
    private static final String RULE_ID = NAMESPACE + "/shadow-team";

    @Test
    void aShadowRulesReportShowsTheExactPatchAndItsDeletionDeletesIt(Remold.Installation remold) {
        Steps.ensureNamespace(NAMESPACE);
        Cluster.apply(RULE);
        try {
            Steps.awaitReady("shadow-team", NAMESPACE);
            remold.server().awaitRulesInSync();
            Cluster.kubectl("create", "-f", "-").withInput("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n"
                    + "  namespace: " + NAMESPACE + "\n").run().orFail();
            String labels = Cluster.kubectl("get", "configmap", "plain", "-n", NAMESPACE, "-o",
                    "jsonpath={.metadata.labels}").run().orFail().stdout();
            assertThat("a Shadow rule changes nothing", labels, equalTo(""));

            Wait.until("the rule's Report", Duration.ofSeconds(30), () -> {
                JsonObject report = Reports.report(RULE_ID, NAMESPACE);
                return report != null && Reports.summary(report, "fail") >= 1;
            });
            JsonObject report = Reports.report(RULE_ID, NAMESPACE);
            JsonObject result = report.getAsJsonArray("results").get(0).getAsJsonObject();
            JsonObject properties = result.getAsJsonObject("properties");
            assertThat(result.getAsJsonArray("resources").get(0).getAsJsonObject().get("name").getAsString(),
                    is("plain"));
            assertThat(result.get("result").getAsString(), is("fail"));
            assertThat(properties.get("source").getAsString(), is("admission"));
            assertThat(properties.get("mode").getAsString(), is("Shadow"));
            assertThat("the exact patch", JsonParser.parseString(properties.get("patch").getAsString()),
                    equalTo(JsonParser.parseString(
                            "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"team\":\"blue\"}}]")));
            assertThat("owned by its rule", report.getAsJsonObject("metadata").getAsJsonArray("ownerReferences")
                    .get(0).getAsJsonObject().get("name").getAsString(), is("shadow-team"));
            long fail = Reports.summary(report, "fail");
            Wait.until("the rule's ClusterReport, with its totals", Duration.ofSeconds(30), () -> {
                JsonObject cluster = Reports.clusterReport(RULE_ID);
                return cluster != null && Reports.summary(cluster, "fail") == fail;
            });

            Cluster.kubectl("delete", "modrules.remold.io", "shadow-team", "-n", NAMESPACE).run().orFail();
            Wait.until("the rule's reports to be deleted", Duration.ofSeconds(30),
                    () -> Reports.report(RULE_ID, NAMESPACE) == null && Reports.clusterReport(RULE_ID) == null);
        } finally {
            Cluster.kubectl("delete", "configmap", "plain", "-n", NAMESPACE, "--ignore-not-found").run();
            Cluster.kubectl("delete", "modrules.remold.io", "shadow-team", "-n", NAMESPACE, "--ignore-not-found")
                    .run().orFail();
            remold.server().awaitRulesInSync();
        }
    }
}

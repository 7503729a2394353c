package io.remold.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.startsWith;

/**
 * Issue 27, impact on existing objects: Deployments exist, then a Shadow ModRule that would label them arrives. The
 * server (its ServiceAccount, the bundle's RBAC) may not list Deployments: the rule's impact says Forbidden, naming
 * them. Once the operator grants the list in the namespace and asks again (the request annotation), the leader's
 * scan writes the exact counts into status.impact and the kubectl columns, and no Deployment was changed.
 */
@ExtendWith(Remold.class)
class ImpactIT {
    private static final String NAMESPACE = "e2e-impact";
    private static final int DEPLOYMENTS = 7;
    /** d-0 and d-1 carry the label already: the rule would change the other five. */
    private static final int LABELLED = 2;

    private static String deployment(int i) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: d-%d
                  namespace: %s
                  labels:
                    app: demo%s
                spec:
                  replicas: 0
                  selector:
                    matchLabels: {app: d-%d}
                  template:
                    metadata:
                      labels: {app: d-%d}
                    spec:
                      containers:
                      - name: main
                        image: registry.k8s.io/pause:3.10
                """.formatted(i, NAMESPACE, i < LABELLED ? "\n    owner: team-a" : "", i, i);
    }

    private static final String RULE = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: add-owner
              namespace: %s
              annotations:
                remold.io/mode: Shadow
            spec:
              type: Patch
              match:
                - select: '$.kind'
                  matchValue: Deployment
              patch:
                - op: add
                  path: /metadata/labels/owner
                  value: team-a
            """.formatted(NAMESPACE);

    /** The Role the operator grants so that the server may scan Deployments in the namespace. */
    private static final String GRANT = "remold-impact-deployments";

    private static String impact(String fields) {
        return Cluster.kubectl("get", Manifest.REMOLD_RULES, "add-owner", "-n", NAMESPACE, "-o",
                "jsonpath=" + fields).run().orFail().stdout();
    }

    @Test
    void aShadowRulesImpactOnExistingDeploymentsIsItsStatusOnceTheServerMayListThem(Remold.Installation remold) {
        Steps.ensureNamespace(NAMESPACE);
        var objects = new StringBuilder();
        for (int i = 0; i < DEPLOYMENTS; i++) {
            objects.append(deployment(i)).append("---\n");
        }
        Cluster.apply(objects.toString());
        Cluster.apply(RULE);
        try {
            Steps.awaitReady("add-owner", NAMESPACE);
            Wait.until("the scan to be forbidden", Duration.ofSeconds(60),
                    () -> impact("{.status.impact.state}").equals("Forbidden"));
            assertThat(impact("{.status.impact.message}"), equalTo("the server may not list apps/v1 deployments in"
                    + " namespace " + NAMESPACE + ": grant its ClusterRole list on them to scan them"));

            Steps.grantServer(GRANT, NAMESPACE, "apps", "deployments", "list");
            Cluster.kubectl("annotate", Manifest.REMOLD_RULES, "add-owner", "-n", NAMESPACE,
                    "remold.io/impact-requested=after-grant", "--overwrite").run().orFail();
            Wait.until("the scan asked for to complete", Duration.ofSeconds(60), () -> impact(
                    "{.status.impact.requested}/{.status.impact.state}").equals("after-grant/Complete"));

            assertThat(Cluster.stored(Manifest.REMOLD_RULES, NAMESPACE, "add-owner"), impact(
                    "{.status.impact.evaluated},{.status.impact.wouldChange},{.status.impact.wouldRefuse},"
                            + "{.status.impact.failed},{.status.impact.observedGeneration}"),
                    equalTo(DEPLOYMENTS + "," + (DEPLOYMENTS - LABELLED) + ",0,0,1"));
            // kubectl apply made them: the label, and kubectl's last-applied configuration patched as KubeMod does
            // (the two already labelled count as unchanged: their last-applied configuration stays as it is).
            assertThat(impact("{.status.impact.samples[0].name} {.status.impact.samples[0].patch}"),
                    startsWith("d-2 [{\"op\":\"add\",\"path\":\"/metadata/labels/owner\",\"value\":\"team-a\"},"
                            + "{\"op\":\"replace\",\"path\":\"/metadata/annotations/kubectl.kubernetes.io~1"
                            + "last-applied-configuration\",\"value\":\"{\\\"apiVersion\\\":\\\"apps/v1\\\""));
            String table = Cluster.kubectl("get", Manifest.REMOLD_RULES, "add-owner", "-n", NAMESPACE).run().orFail()
                    .stdout();
            assertThat(table, containsString("WOULD-CHANGE"));
            assertThat(table, matchesPattern("(?s).*add-owner\\s+Patch\\s+\\S*\\s*\\S*\\s*5\\s+0\\s+True.*"));
            assertThat("a Shadow rule's scan changes nothing", Cluster.kubectl("get", "deployments", "-n", NAMESPACE,
                    "-o", "jsonpath={.items[*].metadata.labels.owner}").run().orFail().stdout(),
                    equalTo("team-a team-a"));
        } finally {
            Cluster.kubectl("delete", Manifest.REMOLD_RULES, "add-owner", "-n", NAMESPACE, "--ignore-not-found").run();
            Cluster.kubectl("delete", "deployments", "--all", "-n", NAMESPACE).run();
            Steps.revokeServer(GRANT, NAMESPACE);
            remold.server().awaitRulesInSync();
        }
    }
}

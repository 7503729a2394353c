package io.remold.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.regex.Pattern;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/**
 * Issue 27 through the running server: a Shadow rule that would label ConfigMaps changes none and counts what it
 * would have done, then is promoted with {@code kubectl patch} and labels the new ones only; and an {@code existing:
 * Apply} rule labels the ConfigMaps already there under {@code remold-existing}, then reports the manager that took
 * the label back, never forcing it.
 */
@ExtendWith(Remold.class)
class PromoteIT {
    private static final String PROMOTE_NAMESPACE = "e2e-promote";
    private static final String APPLY_NAMESPACE = "e2e-existing-apply";
    private static final String RULE_NAME = "label-configmaps";

    /** Labels ConfigMaps on CREATE only, so that another writer's later update keeps its own value. */
    private static String rule(String namespace, String mode, String existing) {
        return """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  type: Patch
                  mode: %s
                  existing: %s
                  admissionOperations: [CREATE]
                  match:
                    - select: '$.kind'
                      matchValue: ConfigMap
                  patch:
                    - op: add
                      path: /metadata/labels/owner
                      value: team-a
                """.formatted(RULE_NAME, namespace, mode, existing);
    }

    private static void createConfigMap(String namespace, String name) {
        Cluster.kubectl("create", "configmap", name, "-n", namespace, "--from-literal=k=v",
                "--field-manager=e2e-kubectl").run().orFail();
    }

    private static String owner(String namespace, String name) {
        return Cluster.kubectl("get", "configmap", name, "-n", namespace, "-o",
                "jsonpath={.metadata.labels.owner}").run().orFail().stdout();
    }

    private static String impact(String fields) {
        return Cluster.kubectl("get", Manifest.REMOLD_RULES, RULE_NAME, "-n", APPLY_NAMESPACE, "-o",
                "jsonpath=" + fields).run().orFail().stdout();
    }

    private static long shadowChanges(RemoldServer server) {
        var series = Pattern.compile("(?m)^remold_rule_verdicts_total\\{family=\"ModRule\",rule=\""
                + Pattern.quote(PROMOTE_NAMESPACE + "/" + RULE_NAME)
                + "\",mode=\"Shadow\",verdict=\"changed\",source=\"admission\"} (\\d+)$");
        var m = series.matcher(server.admin("/metrics").orFail().stdout());
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** Whether the server now labels a ConfigMap it admits: a server-side dry run goes through the webhooks. */
    private static boolean enforced() {
        return Cluster.kubectl("create", "configmap", "probe", "-n", PROMOTE_NAMESPACE, "--dry-run=server", "-o",
                "jsonpath={.metadata.labels.owner}").run().orFail().stdout().equals("team-a");
    }

    @Test
    void aShadowRuleChangesNothingAndCountsWhatItWouldHaveDoneThenPromotedLabelsTheNewConfigMapsOnly(
            Remold.Installation remold) {
        Steps.ensureNamespace(PROMOTE_NAMESPACE);
        Cluster.apply(rule(PROMOTE_NAMESPACE, "Shadow", "Ignore"));
        try {
            Steps.awaitReady(RULE_NAME, PROMOTE_NAMESPACE);
            remold.server().awaitRulesInSync();
            long before = shadowChanges(remold.server());

            createConfigMap(PROMOTE_NAMESPACE, "before");

            assertThat("a Shadow rule does not label", owner(PROMOTE_NAMESPACE, "before"), equalTo(""));
            Wait.until("the Shadow verdict to be counted", Duration.ofSeconds(20),
                    () -> shadowChanges(remold.server()) > before);

            Cluster.kubectl("patch", Manifest.REMOLD_RULES, RULE_NAME, "-n", PROMOTE_NAMESPACE, "--type=merge",
                    "-p", "{\"spec\":{\"mode\":\"Enforce\"}}").run().orFail();
            Steps.awaitReady(RULE_NAME, PROMOTE_NAMESPACE);
            remold.server().awaitRulesInSync();
            Wait.until("the server to enforce the promoted rule", Duration.ofSeconds(20), PromoteIT::enforced);
            createConfigMap(PROMOTE_NAMESPACE, "after");

            assertThat("the promoted rule labels", owner(PROMOTE_NAMESPACE, "after"), equalTo("team-a"));
            assertThat("without existing: Apply the earlier one stays as it is", owner(PROMOTE_NAMESPACE, "before"),
                    equalTo(""));
        } finally {
            Cluster.kubectl("delete", Manifest.REMOLD_RULES, RULE_NAME, "-n", PROMOTE_NAMESPACE, "--ignore-not-found")
                    .run();
            Cluster.kubectl("delete", "configmaps", "before", "after", "-n", PROMOTE_NAMESPACE, "--ignore-not-found")
                    .run();
            remold.server().awaitRulesInSync();
        }
    }

    /** The Role the operator grants so that the server may scan and write ConfigMaps in the namespace. */
    private static final String GRANT = "remold-existing-configmaps";

    private static String labelManagers(String name) {
        return Cluster.kubectl("get", "configmap", name, "-n", APPLY_NAMESPACE, "--show-managed-fields", "-o",
                "jsonpath={range .metadata.managedFields[*]}{.manager}:{.operation}:{.fieldsV1.f:metadata.f:labels}"
                        + "{\"\\n\"}{end}").run().orFail().stdout();
    }

    @Test
    void anExistingApplyRuleLabelsTheConfigMapsThereThenReportsTheManagerThatTookTheLabelBack(
            Remold.Installation remold) {
        Steps.ensureNamespace(APPLY_NAMESPACE);
        Steps.grantServer(GRANT, APPLY_NAMESPACE, "", "configmaps", "list, get, patch");
        for (String name : new String[] {"cm-0", "cm-1", "cm-2"}) {
            createConfigMap(APPLY_NAMESPACE, name);
        }
        Cluster.kubectl("label", "configmap", "cm-2", "-n", APPLY_NAMESPACE, "owner=team-a").run().orFail();
        Cluster.apply(rule(APPLY_NAMESPACE, "Enforce", "Apply"));
        try {
            Steps.awaitReady(RULE_NAME, APPLY_NAMESPACE);
            Wait.until("the scan and its applies to complete", Duration.ofSeconds(60),
                    () -> impact("{.status.impact.state}").equals("Complete"));

            assertThat(Cluster.stored(Manifest.REMOLD_RULES, APPLY_NAMESPACE, RULE_NAME), impact(
                    "{.status.impact.evaluated},{.status.impact.wouldChange},{.status.impact.applied},"
                            + "{.status.impact.conflicts},{.status.impact.refused}"), equalTo("3,2,2,0,0"));
            for (String name : new String[] {"cm-0", "cm-1"}) {
                assertThat(name, owner(APPLY_NAMESPACE, name), equalTo("team-a"));
                assertThat(name, labelManagers(name), containsString("remold-existing:Apply:"));
            }

            // Another writer sets the label its own way: kubectl label is an Update, which takes the field.
            Cluster.kubectl("label", "configmap", "cm-0", "-n", APPLY_NAMESPACE, "owner=team-b", "--overwrite",
                    "--field-manager=e2e-relabel").run().orFail();
            assertThat("the label moved to the other manager", labelManagers("cm-0"),
                    containsString("e2e-relabel:Update:{\"f:owner\":{}}"));
            Cluster.kubectl("annotate", Manifest.REMOLD_RULES, RULE_NAME, "-n", APPLY_NAMESPACE,
                    "remold.io/impact-requested=after-relabel", "--overwrite").run().orFail();
            Wait.until("the rescan asked for to complete", Duration.ofSeconds(60), () -> impact(
                    "{.status.impact.requested}/{.status.impact.state}").equals("after-relabel/Complete"));

            assertThat(Cluster.stored(Manifest.REMOLD_RULES, APPLY_NAMESPACE, RULE_NAME), impact(
                    "{.status.impact.evaluated},{.status.impact.wouldChange},{.status.impact.applied},"
                            + "{.status.impact.conflicts},{.status.impact.refused}"), equalTo("3,1,0,1,0"));
            assertThat(impact("{range .status.impact.samples[?(@.verdict==\"Conflict\")]}{.name} {.manager} {.field}"
                    + "{end}"), equalTo("cm-0 e2e-relabel .metadata.labels.owner"));
            assertThat("never forced", owner(APPLY_NAMESPACE, "cm-0"), equalTo("team-b"));
        } finally {
            Cluster.kubectl("delete", Manifest.REMOLD_RULES, RULE_NAME, "-n", APPLY_NAMESPACE, "--ignore-not-found")
                    .run();
            Cluster.kubectl("delete", "configmaps", "cm-0", "cm-1", "cm-2", "-n", APPLY_NAMESPACE,
                    "--ignore-not-found").run();
            Steps.revokeServer(GRANT, APPLY_NAMESPACE);
            remold.server().awaitRulesInSync();
        }
    }
}

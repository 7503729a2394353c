package io.remold.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;

/**
 * {@code remold why KIND/NAME FIELD --kubeconfig}: the server's jar reads an object the webhook patched and the
 * ModRules of a real API server, and names the rule that writes the field, with its generation and match items.
 */
@ExtendWith(Remold.class)
class WhyIT {
    private static final String NAMESPACE = "e2e-why";

    private static final String RULE = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: team
              namespace: e2e-why
            spec:
              type: Patch
              match:
                - select: '$.kind'
                  matchValue: ConfigMap
                - select: '$.metadata.labels.app'
              patch:
                - op: add
                  path: /metadata/labels/team
                  value: platform
            """;

    @Test
    void whyNamesTheClustersRuleThatWritesTheField(Remold.Installation remold) {
        Steps.ensureNamespace(NAMESPACE);
        Cluster.apply(RULE);
        try {
            Steps.awaitReady("team", NAMESPACE);
            remold.server().awaitRulesInSync();
            Cluster.kubectl("create", "-f", "-").withInput("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: why\n"
                    + "  namespace: " + NAMESPACE + "\n  labels:\n    app: demo\n").run().orFail();

            var why = new Command(List.of(Cluster.java().toString(), "-jar", Cluster.jar("server").toString(),
                    "why", "ConfigMap/why", "metadata.labels.team", "-n", NAMESPACE, "--kubeconfig",
                    Cluster.KUBECONFIG.toString()), null).run().orFail();

            assertThat(why.toString(), why.stdout(), containsString("field /metadata/labels/team of ConfigMap"
                    + " e2e-why/why" + System.lineSeparator()));
            assertThat(why.toString(), why.stdout(), containsString("  ModRule e2e-why/team (generation 1)"
                    + System.lineSeparator() + "    spec.match[0] ($.kind) matchValue \"ConfigMap\": selected"
                    + " \"ConfigMap\"" + System.lineSeparator() + "    spec.match[1] ($.metadata.labels.app) any"
                    + " value: selected \"demo\"" + System.lineSeparator()));
        } finally {
            Cluster.kubectl("delete", "configmap", "why", "-n", NAMESPACE, "--ignore-not-found").run();
            Cluster.kubectl("delete", "modrules.remold.io", "team", "-n", NAMESPACE, "--ignore-not-found")
                    .run().orFail();
            remold.server().awaitRulesInSync();
        }
    }
}

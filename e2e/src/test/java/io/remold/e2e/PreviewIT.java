package io.remold.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/**
 * {@code remold preview --kubeconfig}: the server's jar reads the Deployments of a real API server (discovery,
 * paginated lists) and reports what rules from files would do to them, changing nothing in the cluster.
 */
@ExtendWith(Remold.class)
class PreviewIT {
    private static final String NAMESPACE = "e2e-preview";

    private static String deployment(String name, String extraLabel) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: %s
                  namespace: %s
                  labels:
                    app: %s%s
                spec:
                  replicas: 1
                  selector:
                    matchLabels:
                      app: %s
                  template:
                    metadata:
                      labels:
                        app: %s
                    spec:
                      containers:
                        - name: app
                          image: registry.example/app:1.0
                """.formatted(name, NAMESPACE, name, extraLabel.isEmpty() ? "" : "\n    " + extraLabel, name, name);
    }

    private static final String RULES = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: team-label
              namespace: e2e-preview
              annotations:
                remold.io/mode: Shadow
            spec:
              type: Patch
              match:
                - select: '$.kind'
                  matchValue: Deployment
                - select: '$.metadata.labels.team'
                  negate: true
              patch:
                - op: add
                  path: /metadata/labels/team
                  value: '{{Namespace}}'
            ---
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: no-databases-here
              namespace: e2e-preview
            spec:
              type: Reject
              rejectMessage: 'Deployment {{Target.metadata.name}}: databases run in the data namespace'
              match:
                - select: '$.kind'
                  matchValue: Deployment
                - select: '$.metadata.labels.tier'
                  matchValue: db
            """;

    @Test
    void previewCountsAndDiffsTheClustersDeployments(@TempDir Path dir) throws IOException {
        Steps.ensureNamespace(NAMESPACE);
        // Server-side apply leaves no kubectl last-applied annotation, which a ModRule's patch would rewrite too
        // (KubeMod's behaviour, shown by preview as one more operation).
        Cluster.kubectl("apply", "--server-side", "-f", "-").withInput(deployment("alpha", "") + "---\n"
                + deployment("beta", "tier: db") + "---\n" + deployment("gamma", "team: e2e-preview")).run().orFail();
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(rules, RULES);
        try {
            var preview = new Command(List.of(Cluster.java().toString(), "-jar", Cluster.jar("server").toString(),
                    "preview", "--rules", rules.toString(), "--kubeconfig", Cluster.KUBECONFIG.toString(),
                    "--namespace", NAMESPACE, "--samples", "1"), null).run().orFail();

            assertThat(preview.toString(), preview.stdout(), equalTo(String.join(System.lineSeparator(),
                    "e2e-preview/team-label (ModRule, Shadow): 2 of 3 Deployments (apps/v1) would change, 0 would be"
                            + " refused, 0 failed",
                    "  Deployment e2e-preview/alpha (apps/v1) would change:",
                    "    {\"op\":\"add\",\"path\":\"/metadata/labels/team\",\"value\":\"e2e-preview\"}",
                    "",
                    "e2e-preview/no-databases-here (ModRule, Enforce): 0 of 3 Deployments (apps/v1) would change, 1"
                            + " would be refused, 0 failed",
                    "  Deployment e2e-preview/beta (apps/v1) would be refused: Deployment beta: databases run in the"
                            + " data namespace",
                    "")));
            // a preview changes nothing
            var labels = Cluster.kubectl("get", "deployment", "alpha", "-n", NAMESPACE, "-o",
                    "jsonpath={.metadata.labels}").run().orFail();
            assertThat(labels.stdout(), equalTo("{\"app\":\"alpha\"}"));

            var json = new Command(List.of(Cluster.java().toString(), "-jar", Cluster.jar("server").toString(),
                    "preview", "--rules", rules.toString(), "--kubeconfig", Cluster.KUBECONFIG.toString(),
                    "--kind", "apps/Deployment", "--namespace", NAMESPACE, "--output", "json"), null).run().orFail();
            assertThat(json.stdout(), containsString("\"evaluated\": 3"));
        } finally {
            Cluster.kubectl("delete", "deployment", "alpha", "beta", "gamma", "-n", NAMESPACE, "--ignore-not-found")
                    .run().orFail();
        }
    }
}

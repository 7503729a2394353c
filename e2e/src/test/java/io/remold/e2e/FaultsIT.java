package io.remold.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * Scenario 8: the server stopped (the Patch webhook is skipped per failurePolicy Ignore, the Reject webhook fails
 * closed where a Reject rule applies and reaches no other namespace) and started again; kube-apiserver restarted under
 * a running server (its informers must reconnect).
 */
@ExtendWith(Remold.class)
class FaultsIT {
    private static final String NAMESPACE = "e2e-faults";
    /** Holds only a Patch rule: no Reject rule guards it. */
    private static final String OPEN = "e2e-faults-open";

    private static String reject(String name) {
        return """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  type: Reject
                  match:
                    - select: '$.metadata.labels.forbidden'
                  rejectMessage: 'forbidden'
                """.formatted(name, NAMESPACE);
    }

    private static String rule(String name, String value) {
        return """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  type: Patch
                  match:
                    - select: '$.kind'
                      matchValue: ConfigMap
                  patch:
                    - op: add
                      path: /metadata/labels/%s
                      value: '%s'
                """.formatted(name, NAMESPACE, name, value);
    }

    private static String label(String configMap, String label) {
        return Cluster.kubectl("get", "configmap", configMap, "-n", NAMESPACE, "-o",
                "jsonpath={.metadata.labels." + label + "}").run().orFail().stdout();
    }

    @Test
    void withTheServerStoppedWritesFailClosedWhereRejectRulesApplyAndRecoverWhenItIsBack(
            Remold.Installation remold) {
        Steps.ensureNamespace(NAMESPACE);
        Steps.ensureNamespace(OPEN);
        Cluster.apply(rule("stopped", "no"));
        Cluster.apply(reject("guard"));
        Cluster.apply(rule("stopped", "no").replace("namespace: " + NAMESPACE, "namespace: " + OPEN));
        try {
            Steps.awaitReady("stopped", NAMESPACE);
            Steps.awaitReady("guard", NAMESPACE);
            Steps.awaitReady("stopped", OPEN);
            remold.server().awaitRulesInSync();
            remold.server().stop();
            try {
                var create = Cluster.kubectl("create", "configmap", "while-down", "-n", NAMESPACE).run();
                assertThat("create must fail closed\n" + create, create.ok(), is(false));
                assertThat(create.stderr(), containsString("validate.remold.io"));
                assertThat(create.stderr(), not(containsString("mutate.remold.io")));
                var open = Cluster.kubectl("create", "configmap", "while-down", "-n", OPEN, "-o",
                        "jsonpath={.metadata.labels}").run();
                assertThat("no Reject rule here: created, and unmutated (Patch rules fail open)\n" + open, open.ok(),
                        is(true));
                assertThat(open.stdout(), is(""));
            } finally {
                remold.server().start();
            }
            Cluster.kubectl("create", "configmap", "after-restart", "-n", NAMESPACE).run().orFail();
            assertThat(Cluster.stored("configmap", NAMESPACE, "after-restart"), label("after-restart", "stopped"),
                    equalTo("no"));
        } finally {
            Cluster.kubectl("delete", "modrules.remold.io", "guard", "-n", NAMESPACE, "--ignore-not-found").run().orFail();
            Cluster.kubectl("delete", "namespace", OPEN, "--wait=false", "--ignore-not-found").run().orFail();
            cleanUp(remold, "stopped", "after-restart");
        }
    }

    @Test
    void aRestartOfKubeApiserverUnderARunningServerLosesNoRule(Remold.Installation remold) {
        Steps.ensureNamespace(NAMESPACE);
        Cluster.apply(rule("before", "yes"));
        try {
            Steps.awaitReady("before", NAMESPACE);
            remold.server().awaitRulesInSync();
            Cluster.restartApiserver();
            // A rule made after the restart reaches the server only through re-established watches.
            Cluster.apply(rule("after", "yes"));
            Steps.awaitReady("after", NAMESPACE);
            Wait.until("the server to see the rule made after the restart", Duration.ofSeconds(30),
                    () -> remold.server().ruleCount() >= 2);
            Cluster.kubectl("create", "configmap", "both", "-n", NAMESPACE).run().orFail();
            assertThat(Cluster.stored("configmap", NAMESPACE, "both"),
                    label("both", "before") + "," + label("both", "after"), equalTo("yes,yes"));
        } finally {
            cleanUp(remold, "before", "both");
            Cluster.kubectl("delete", "modrules.remold.io", "after", "-n", NAMESPACE, "--ignore-not-found").run().orFail();
            remold.server().awaitRulesInSync();
        }
    }

    private static void cleanUp(Remold.Installation remold, String rule, String configMap) {
        Cluster.kubectl("delete", "modrules.remold.io", rule, "-n", NAMESPACE, "--ignore-not-found").run().orFail();
        remold.server().awaitRulesInSync();
        Cluster.kubectl("delete", "configmap", configMap, "-n", NAMESPACE, "--ignore-not-found").run().orFail();
    }
}

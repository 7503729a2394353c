package io.remold.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * Issue 15: Gatekeeper's own mutator resources (the bundle's CRDs with --gatekeeper-compat), applied with kubectl
 * unchanged, are validated with Gatekeeper's reasons, reach the server through its informers, get Gatekeeper's
 * {@code byPod} status, and mutate objects after the ModRules of the same request.
 */
@ExtendWith(Remold.class)
class GatekeeperMutatorsIT {
    private static final String NAMESPACE = "e2e-gatekeeper";
    private static final String MUTATORS = """
            apiVersion: mutations.gatekeeper.sh/v1
            kind: Assign
            metadata:
              name: e2e-pull-always
            spec:
              applyTo:
                - groups: [""]
                  kinds: ["Pod"]
                  versions: ["v1"]
              match:
                scope: Namespaced
                namespaces: ["e2e-gatekeeper"]
              location: "spec.containers[name: *].imagePullPolicy"
              parameters:
                assign:
                  value: Always
            ---
            apiVersion: mutations.gatekeeper.sh/v1
            kind: AssignMetadata
            metadata:
              name: e2e-owner-label
            spec:
              match:
                namespaces: ["e2e-gatekeeper"]
              location: metadata.labels.owner
              parameters:
                assign:
                  value: platform
            ---
            apiVersion: mutations.gatekeeper.sh/v1
            kind: ModifySet
            metadata:
              name: e2e-verbose-args
            spec:
              applyTo:
                - groups: [""]
                  kinds: ["Pod"]
                  versions: ["v1"]
              match:
                namespaces: ["e2e-gatekeeper"]
              location: "spec.containers[name: app].args"
              parameters:
                operation: merge
                values:
                  fromList: ["--verbose"]
            ---
            apiVersion: mutations.gatekeeper.sh/v1alpha1
            kind: AssignImage
            metadata:
              name: e2e-mirror
            spec:
              applyTo:
                - groups: [""]
                  kinds: ["Pod"]
                  versions: ["v1"]
              match:
                namespaces: ["e2e-gatekeeper"]
              location: "spec.containers[name: *].image"
              parameters:
                assignDomain: mirror.example.com
            """;
    /** Runs first (ModRules come before Gatekeeper's mutators in one request): the Assign overrides its value. */
    private static final String MODRULE = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: pull-if-not-present
              namespace: e2e-gatekeeper
            spec:
              type: Patch
              match:
                - select: '$.kind'
                  matchValue: Pod
              patch:
                - op: add
                  path: /spec/containers/0/imagePullPolicy
                  value: IfNotPresent
                - op: add
                  path: /metadata/labels/patched-by-modrule
                  value: 'yes'
            """;
    private static final List<String> NAMES = List.of("assign.mutations.gatekeeper.sh/e2e-pull-always",
            "assignmetadata.mutations.gatekeeper.sh/e2e-owner-label", "modifyset.mutations.gatekeeper.sh/e2e-verbose-args",
            "assignimage.mutations.gatekeeper.sh/e2e-mirror");

    @Test
    void kubectlRefusesAnInvalidMutatorWithGatekeepersReasonAndField() {
        var apply = Cluster.kubectl("apply", "-f", "-").withInput("""
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata:
                  name: e2e-broken
                spec:
                  applyTo:
                    - groups: [""]
                      kinds: ["Pod"]
                      versions: ["v1"]
                  location: metadata.labels.team
                  parameters:
                    assign:
                      value: x
                """).run();
        assertThat("kubectl apply must fail\n" + apply, apply.ok(), is(false));
        assertThat(apply.stderr(), containsString("spec.location"));
        assertThat(apply.stderr(), containsString("metadata"));
        assertThat(Cluster.kubectl("get", "assign.mutations.gatekeeper.sh", "e2e-broken").run().ok(), is(false));
    }

    @Test
    void mutatorsAppliedUnchangedMutateAPodAfterTheModRules(Remold.Installation remold) {
        Steps.ensureNamespace(NAMESPACE);
        Cluster.apply(MUTATORS);
        Cluster.apply(MODRULE);
        try {
            for (String mutator : NAMES) {
                var wait = Cluster.kubectl("wait", "--for=condition=Ready=True", mutator, "--timeout=30s").run();
                assertThat(wait + "\n" + remold.server().logTail(30), wait.ok(), is(true));
                assertThat(mutator + " byPod", Cluster.kubectl("get", mutator, "-o",
                        "jsonpath={.status.byPod[0].enforced}").run().orFail().stdout(), equalTo("true"));
            }
            Steps.awaitReady("pull-if-not-present", NAMESPACE);
            remold.server().awaitRulesInSync();

            var create = Cluster.kubectl("apply", "-f", "-").withInput("""
                    apiVersion: v1
                    kind: Pod
                    metadata:
                      name: web
                      namespace: e2e-gatekeeper
                    spec:
                      containers:
                        - name: app
                          image: docker.io/library/nginx:1.27
                          args: ["--port=80"]
                        - name: sidecar
                          image: busybox:1.36
                    """).run().orFail();
            assertThat(create.stderr(), containsString("mutated by Gatekeeper mutator(s): Assign/e2e-pull-always"));
            assertThat(create.stderr(), containsString("patched by ModRule(s): e2e-gatekeeper/pull-if-not-present"));

            String pod = Cluster.stored("pod", NAMESPACE, "web");
            assertThat(pod, field("{.spec.containers[*].imagePullPolicy}"), equalTo("Always Always"));
            assertThat(pod, field("{.metadata.labels.owner}"), equalTo("platform"));
            assertThat(pod, field("{.metadata.labels.patched-by-modrule}"), equalTo("yes"));
            assertThat(pod, field("{.spec.containers[0].args}"), equalTo("[\"--port=80\",\"--verbose\"]"));
            assertThat(pod, field("{.spec.containers[*].image}"),
                    equalTo("mirror.example.com/library/nginx:1.27 mirror.example.com/busybox:1.36"));
        } finally {
            Cluster.kubectl("delete", "pod", "web", "-n", NAMESPACE, "--ignore-not-found", "--wait=false",
                    "--grace-period=0", "--force").run();
            Cluster.kubectl("delete", "-f", "-", "--ignore-not-found").withInput(MUTATORS + "---\n" + MODRULE).run()
                    .orFail();
            remold.server().awaitRulesInSync();
        }
    }

    /** Two mutators that disagree on a node's type disable each other, and say so where Gatekeeper's users look. */
    @Test
    void aSchemaConflictShowsInTheStatusUntilItEnds(Remold.Installation remold) {
        String keyed = """
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata:
                  name: e2e-conflict-keyed
                spec:
                  applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
                  location: "spec.containers[name: app].image"
                  parameters: {assign: {value: "nginx:1"}}
                """;
        String plain = """
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata:
                  name: e2e-conflict-plain
                spec:
                  applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
                  location: "spec.containers.image"
                  parameters: {assign: {value: "nginx:1"}}
                """;
        String keyedName = "assign.mutations.gatekeeper.sh/e2e-conflict-keyed";
        Cluster.apply(keyed + "---\n" + plain);
        try {
            for (String mutator : List.of(keyedName, "assign.mutations.gatekeeper.sh/e2e-conflict-plain")) {
                var wait = Cluster.kubectl("wait", "--for=condition=Ready=False", mutator, "--timeout=30s").run();
                assertThat(wait + "\n" + remold.server().logTail(30), wait.ok(), is(true));
                assertThat(Cluster.kubectl("get", mutator, "-o", "jsonpath={.status.byPod[0].enforced}"
                        + " {.status.byPod[0].errors[0].type}").run().orFail().stdout(),
                        equalTo("false ErrConflictingSchema"));
            }
            Cluster.kubectl("delete", "-f", "-").withInput(plain).run().orFail();
            var ready = Cluster.kubectl("wait", "--for=condition=Ready=True", keyedName, "--timeout=30s").run();
            assertThat(ready + "\n" + remold.server().logTail(30), ready.ok(), is(true));
        } finally {
            Cluster.kubectl("delete", "-f", "-", "--ignore-not-found").withInput(keyed + "---\n" + plain).run()
                    .orFail();
            remold.server().awaitRulesInSync();
        }
    }

    private static String field(String jsonPath) {
        return Cluster.kubectl("get", "pod", "web", "-n", NAMESPACE, "-o", "jsonpath=" + jsonPath).run().orFail()
                .stdout();
    }
}

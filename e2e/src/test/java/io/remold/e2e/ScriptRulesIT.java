package io.remold.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

/**
 * Issue 18: js-admissions-controller's script rules (the bundle's CRDs with --js-admissions-compat), applied with
 * kubectl unchanged from examples/scripts: the pod-count limit keeps its count from the API server's events, a
 * mutation changes the stored pod, and a script that loops forever fails only its own rule.
 */
@ExtendWith(Remold.class)
class ScriptRulesIT {
    private static final Path SCRIPTS = Cluster.REPO.resolve("examples/scripts");
    /** The seed's POD_LIMIT, across the namespaces its NAMESPACE_REGEX (^default($|-)) selects. */
    private static final int POD_LIMIT = 40;
    private static final List<String> LIMITED = List.of("default-e2e-a", "default-e2e-b");
    private static final String OTHER = "e2e-scripts";
    private static final String LIMIT_RULE = "clusterjsadmission.momiji.com/pod-limit";
    private static final String REFUSED = "Max number of pods has been reached";

    private static String pod(String name, String namespace) {
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  containers:
                    - name: app
                      image: nginx:1.27
                """.formatted(name, namespace);
    }

    private static Command.Result create(String name, String namespace, boolean dryRun) {
        var argv = new java.util.ArrayList<>(List.of("create", "-f", "-"));
        if (dryRun) {
            argv.add("--dry-run=server");
        }
        return Cluster.kubectl(argv.toArray(String[]::new)).withInput(pod(name, namespace)).run();
    }

    /** Pods the seed's rule counts that other scenarios may have left. */
    private static int countedPods() {
        var get = Cluster.kubectl("get", "pods", "-A", "--no-headers", "-o",
                "custom-columns=NS:.metadata.namespace").run().orFail();
        return (int) get.stdout().lines().filter(ns -> ns.strip().matches("default($|-.*)")).count();
    }

    private static void deletePods(String namespace) {
        Cluster.kubectl("delete", "pods", "--all", "-n", namespace, "--wait=false", "--grace-period=0", "--force")
                .run();
    }

    @Test
    void thePodLimitCountsFromTheApiServersEventsAndRefusesBeyondIt(Remold.Installation remold) {
        LIMITED.forEach(Steps::ensureNamespace);
        Cluster.kubectl("apply", "-f", SCRIPTS.resolve("pod-limit/rule.yaml").toString()).run().orFail();
        try {
            var ready = Cluster.kubectl("wait", "--for=condition=Ready=True", LIMIT_RULE, "--timeout=60s").run();
            assertThat(ready + "\n" + remold.server().logTail(30), ready.ok(), is(true));
            // Up to the limit, spread over two namespaces: every create is admitted as the count grows.
            int existing = countedPods();
            var pods = new StringBuilder();
            for (int i = existing; i < POD_LIMIT; i++) {
                pods.append("---\n").append(pod("p" + i, LIMITED.get(i % 2)));
            }
            Cluster.apply(pods.toString());
            assertThat(countedPods(), equalTo(POD_LIMIT));
            // The count follows the informer's events: asked with server-side dry runs until it has caught up.
            Wait.until("the pod limit to refuse a new pod", Duration.ofSeconds(30), () ->
                    !create("one-more", LIMITED.get(0), true).ok());
            var refused = create("one-more", LIMITED.get(0), false);
            assertThat(refused.ok(), is(false));
            assertThat(refused.stderr(), containsString(REFUSED));
            // Pods elsewhere are not limited.
            Steps.ensureNamespace(OTHER);
            create("elsewhere", OTHER, false).orFail();
            // A deletion frees room.
            Cluster.kubectl("delete", "pod", "p" + (POD_LIMIT - 1), "-n", LIMITED.get((POD_LIMIT - 1) % 2),
                    "--grace-period=0", "--force").run().orFail();
            Wait.until("the pod limit to admit a pod again", Duration.ofSeconds(30), () ->
                    create("one-more", LIMITED.get(0), true).ok());
            create("one-more", LIMITED.get(0), false).orFail();
            assertThat(create("two-more", LIMITED.get(1), false).stderr(), containsString(REFUSED));
        } finally {
            Cluster.kubectl("delete", "-f", SCRIPTS.resolve("pod-limit/rule.yaml").toString(), "--ignore-not-found")
                    .run().orFail();
            LIMITED.forEach(ScriptRulesIT::deletePods);
            deletePods(OTHER);
        }
    }

    @Test
    void mutationsApplyAndAScriptThatLoopsForeverFailsOnlyItsRule(Remold.Installation remold) {
        String looping = """
                apiVersion: momiji.com/v1
                kind: ClusterJsAdmission
                metadata:
                  name: e2e-loops-forever
                spec:
                  kinds: [pods]
                  js: |
                    function jsa_mutate(op, obj) { while (true) {} }
                """;
        Path annotations = SCRIPTS.resolve("sample-add-annotations/rule.yaml");
        Path remoldForm = SCRIPTS.resolve("remold-form/rule.yaml");
        Cluster.kubectl("apply", "-f", annotations.toString()).run().orFail();
        Cluster.kubectl("apply", "-f", remoldForm.toString()).run().orFail();
        Cluster.apply(looping);
        try {
            for (String rule : List.of("clusterjsadmission.momiji.com/sample-add-annotations",
                    "clusterjsadmission.momiji.com/e2e-loops-forever")) {
                var ready = Cluster.kubectl("wait", "--for=condition=Ready=True", rule, "--timeout=60s").run();
                assertThat(ready + "\n" + remold.server().logTail(30), ready.ok(), is(true));
            }
            Steps.awaitReady("team-label", "default");
            Wait.until("the scripts to be in force", Duration.ofSeconds(30), () ->
                    create("scripted", "default", true).stderr().contains("e2e-loops-forever"));
            var created = create("scripted", "default", false).orFail();
            assertThat(created.stderr(), containsString("script ClusterJsAdmission/e2e-loops-forever failed"));
            assertThat(Cluster.kubectl("get", "pod", "scripted", "-n", "default", "-o",
                    "jsonpath={.metadata.annotations.jsadmissions/sample-add-annotation}").run().orFail().stdout(),
                    matchesPattern("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z"));
            assertThat(Cluster.kubectl("get", "pod", "scripted", "-n", "default", "-o",
                    "jsonpath={.metadata.labels.team}").run().orFail().stdout(), equalTo("default"));
            // A broken script is refused when applied, with the field and line.
            var broken = Cluster.kubectl("apply", "-f", "-").withInput("""
                    apiVersion: momiji.com/v1
                    kind: ClusterJsAdmission
                    metadata:
                      name: e2e-broken
                    spec:
                      js: |
                        function jsa_mutate(op, objekt) { return; }
                    """).run();
            assertThat(broken.ok(), is(false));
            assertThat(broken.stderr(), containsString("spec.js"));
        } finally {
            Cluster.kubectl("delete", "pod", "scripted", "-n", "default", "--ignore-not-found", "--grace-period=0",
                    "--force").run();
            Cluster.kubectl("delete", "-f", annotations.toString(), "--ignore-not-found").run().orFail();
            Cluster.kubectl("delete", "-f", remoldForm.toString(), "--ignore-not-found").run().orFail();
            Cluster.kubectl("delete", "-f", "-", "--ignore-not-found").withInput(looping).run().orFail();
        }
    }
}

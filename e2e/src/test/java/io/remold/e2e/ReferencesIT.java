package io.remold.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * ModRules' {@code spec.references} against the real API server, with the server running as its ServiceAccount and
 * the installation allowing ConfigMaps only ({@link Remold#ALLOW_REFERENCES}): a name templated from the object, a
 * label selector, each {@code onMissing}, a Reject rule comparing with a ConfigMap, a kind outside the allow-list, and
 * tenant isolation (a rule in one namespace never reads another's ConfigMaps). Objects are tried with
 * {@code --dry-run=server}, so the webhooks decide and nothing is stored; the reference caches fill in the background,
 * so each first decision is waited for.
 */
@ExtendWith(Remold.class)
class ReferencesIT {
    private static final String TENANT = "refs-a";
    private static final String OTHER = "refs-b";
    private static final Duration CACHED = Duration.ofSeconds(30);

    @BeforeAll
    static void namespacesAndConfigMaps() {
        Steps.ensureNamespace(TENANT);
        Steps.ensureNamespace(OTHER);
        Cluster.apply("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: team-payments, namespace: %1$s, labels: {quota: 'yes'}}
                data: {costCentre: cc-4711}
                ---
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: registries, namespace: %1$s, labels: {quota: 'yes'}}
                data: {allowed: 'ghcr[.]io|registry[.]example[.]com'}
                ---
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: secret-plans, namespace: %2$s, labels: {quota: 'yes'}}
                data: {tier: vault}
                """.formatted(TENANT, OTHER));
    }

    @AfterAll
    static void deleteConfigMaps() {
        Cluster.kubectl("delete", "configmap", "team-payments", "registries", "-n", TENANT, "--ignore-not-found").run();
        Cluster.kubectl("delete", "configmap", "secret-plans", "-n", OTHER, "--ignore-not-found").run();
    }

    @Test
    void aNameTemplatedFromTheObjectFindsTheTeamsConfigMapAndAMissingOneSkipsTheRule(Remold.Installation remold) {
        String rule = rule(TENANT, "team-cost-centre", "Patch", """
                  references:
                  - {name: settings, apiVersion: v1, kind: ConfigMap, objectName: 'team-{{ Target.metadata.labels.team }}', onMissing: skip}
                  match:
                  - {select: '$.kind', matchValue: Pod}
                  patch:
                  - {op: add, path: /metadata/labels/cost-centre, value: '{{ References.settings.data.costCentre }}'}
                """);
        withRule(remold, rule, TENANT, "team-cost-centre", () -> {
            Wait.until("the Pod of team payments to get its cost centre", CACHED,
                    () -> "cc-4711".equals(podLabel(TENANT, "payments", "cost-centre")));
            assertThat("no ConfigMap team-unknown: the rule is skipped", podLabel(TENANT, "unknown", "cost-centre"),
                    is(""));
        });
    }

    @Test
    void aSelectorSeesTheLabelledConfigMapsOfTheRulesNamespaceOnly(Remold.Installation remold) {
        // refs-b's ConfigMap carries the label too: a third one would mean the rule read another namespace.
        String rule = rule(TENANT, "quota-count", "Patch", """
                  references:
                  - {name: quotas, apiVersion: v1, kind: ConfigMap, labelSelector: {matchLabels: {quota: 'yes'}}, onMissing: empty}
                  match:
                  - {select: '$.kind', matchValue: Pod}
                  - {select: 'length($.syntheticRefs.quotas) == 2'}
                  patch:
                  - {op: add, path: /metadata/labels/quotas, value: two}
                """);
        withRule(remold, rule, TENANT, "quota-count", () ->
                Wait.until("the Pod to see its namespace's two labelled ConfigMaps", CACHED,
                        () -> "two".equals(podLabel(TENANT, "payments", "quotas"))));
    }

    @Test
    void aRejectRuleComparesTheImagesWithTheNamespacesAllowListAndRejectsWhenThereIsNone(Remold.Installation remold) {
        String body = """
                  references:
                  - {name: registries, apiVersion: v1, kind: ConfigMap, objectName: registries, onMissing: fail}
                  match:
                  - {select: '$.kind', matchValue: Deployment}
                  - select: '$.spec.template.spec.containers[? @.image !~ ("^(" + $.syntheticRefs.registries.data.allowed + ")/")].image'
                  rejectMessage: 'every image must come from {{ References.registries.data.allowed }}'
                """;
        String tenantRule = rule(TENANT, "allowed-registries", "Reject", body);
        String otherRule = rule(OTHER, "allowed-registries", "Reject", body);
        withRule(remold, tenantRule, TENANT, "allowed-registries", () -> withRule(remold, otherRule, OTHER,
                "allowed-registries", () -> {
            Wait.until("a Deployment pulling from docker.io to be rejected", CACHED,
                    () -> !deployment(TENANT, "docker.io/someone/miner:latest").ok());
            assertThat(deployment(TENANT, "docker.io/someone/miner:latest").stderr(),
                    containsString("every image must come from ghcr[.]io|registry[.]example[.]com"));
            var allowed = deployment(TENANT, "ghcr.io/shop/web:1.4.0");
            assertThat(allowed.toString(), allowed.ok(), is(true));
            // refs-b has no ConfigMap registries (onMissing: fail): a Reject rule that cannot compare rejects.
            var none = deployment(OTHER, "ghcr.io/shop/web:1.4.0");
            assertThat(none.toString(), none.ok(), is(false));
            assertThat(none.stderr(), containsString("ConfigMap " + OTHER + "/registries not found"));
        }));
    }

    @Test
    void aNamespacedRuleCannotReadAnotherNamespace(Remold.Installation remold) {
        // Told where to look: refused when the rule is created.
        var refused = Cluster.kubectl("apply", "-f", "-").withInput(rule(TENANT, "peek", "Patch", """
                  references:
                  - {name: plans, apiVersion: v1, kind: ConfigMap, objectName: secret-plans, namespace: %s, onMissing: empty}
                  match:
                  - {select: '$.kind', matchValue: Pod}
                  patch:
                  - {op: add, path: /metadata/labels/tier, value: 'x{{ References.plans.data.tier }}'}
                """.formatted(OTHER))).run();
        assertThat(refused.toString(), refused.ok(), is(false));
        assertThat(refused.stderr(), containsString("only rules in the system namespace may read another namespace"));
        // Named by the object: looked up in the rule's own namespace, where there is no such ConfigMap. (The rule
        // applies only once the cache has listed: its first reference is found then, and skips the rule before.)
        String rule = rule(TENANT, "peek", "Patch", """
                  references:
                  - {name: own, apiVersion: v1, kind: ConfigMap, objectName: team-payments, onMissing: skip}
                  - {name: plans, apiVersion: v1, kind: ConfigMap, objectName: '{{ Target.metadata.labels.team }}', onMissing: empty}
                  match:
                  - {select: '$.kind', matchValue: Pod}
                  patch:
                  - {op: add, path: /metadata/labels/tier, value: 'x{{ References.plans.data.tier }}'}
                """);
        withRule(remold, rule, TENANT, "peek", () -> {
            Wait.until("the rule to apply", CACHED, () -> !podLabel(TENANT, "secret-plans", "tier").isEmpty());
            assertThat(podLabel(TENANT, "secret-plans", "tier"), equalTo("x"));
        });
    }

    @Test
    void aKindOutsideTheAllowListIsRefusedWhenTheRuleIsCreated() {
        // Another API group than the allowed ConfigMaps: the rule is refused when it is created.
        var deployments = Cluster.kubectl("apply", "-f", "-").withInput(rule(TENANT, "owner", "Patch", """
                  references:
                  - {name: owner, apiVersion: apps/v1, kind: Deployment, objectName: web, onMissing: skip}
                  match:
                  - {select: '$.kind', matchValue: Pod}
                  patch:
                  - {op: add, path: /metadata/labels/owner, value: '{{ References.owner.metadata.name }}'}
                """)).run();
        assertThat(deployments.toString(), deployments.ok(), is(false));
        assertThat(deployments.stderr(), containsString(
                "spec.references[0].kind: apps/v1 Deployment may not be referenced: the server reads only configmaps"));
        // Secrets are in the core group like ConfigMaps: the server discovered the allowed groups' kinds when it
        // started, so this rule is refused when it is created too; and its account cannot read Secrets anyway.
        var secrets = Cluster.kubectl("apply", "-f", "-").withInput(rule(TENANT, "token-check", "Reject", """
                  references:
                  - {name: token, apiVersion: v1, kind: Secret, objectName: token, onMissing: skip}
                  match:
                  - {select: '$.kind', matchValue: Deployment}
                  rejectMessage: 'no token'
                """)).run();
        assertThat(secrets.toString(), secrets.ok(), is(false));
        assertThat(secrets.stderr(), containsString(
                "spec.references[0].kind: secrets may not be referenced: the server reads only configmaps"));
        var read = Cluster.kubectl("get", "secrets", "-n", TENANT, "--as=system:serviceaccount:"
                + Remold.SYSTEM_NAMESPACE + ":remold-server").run();
        assertThat(read.toString(), read.ok(), is(false));
    }

    private static String rule(String namespace, String name, String type, String spec) {
        return """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: %s, namespace: %s}
                spec:
                  type: %s
                %s""".formatted(name, namespace, type, spec);
    }

    /** Applies the rule, waits for it to be Ready and held by the server, runs the checks, deletes it. */
    private static void withRule(Remold.Installation remold, String rule, String namespace, String name, Runnable checks) {
        Cluster.apply(rule);
        try {
            Steps.awaitReady(name, namespace);
            remold.server().awaitRulesInSync();
            checks.run();
        } finally {
            Cluster.kubectl("delete", "modrules.remold.io", name, "-n", namespace, "--ignore-not-found").run();
            remold.server().awaitRulesInSync();
        }
    }

    /** A label of the Pod of {@code team} as the webhook leaves it ({@code --dry-run=server}), or "". */
    private static String podLabel(String namespace, String team, String label) {
        return Cluster.kubectl("create", "--dry-run=server", "-o", "jsonpath={.metadata.labels." + label + "}",
                "-f", "-").withInput("""
                apiVersion: v1
                kind: Pod
                metadata: {name: checkout, namespace: %s, labels: {team: %s}}
                spec:
                  containers: [{name: app, image: ghcr.io/shop/checkout:2.0}]
                """.formatted(namespace, team)).run().orFail().stdout().strip();
    }

    private static Command.Result deployment(String namespace, String image) {
        return Cluster.kubectl("create", "--dry-run=server", "-f", "-").withInput("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web, namespace: %s}
                spec:
                  selector: {matchLabels: {app: web}}
                  template:
                    metadata: {labels: {app: web}}
                    spec:
                      containers: [{name: app, image: %s}]
                """.formatted(namespace, image)).run();
    }
}

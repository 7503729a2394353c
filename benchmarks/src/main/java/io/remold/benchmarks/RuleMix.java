package io.remold.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A realistic mix of ModRules for benchmarks, as YAML documents.
 *
 * <p>Most rules are guarded by {@code $.kind} and live in other namespaces, as in a cluster where each team owns a
 * few rules; some are cluster-wide rules scoped by {@code targetNamespaceRegex}; a few target Deployments in the
 * benchmark namespace (and more in team namespaces) but fail on a deeper match item (filters, regexes); exactly one rule matches the benchmark
 * Deployment and patches it with a select, a filter and templates. Rules grow with the number of teams: the
 * benchmark namespace always holds the matching rule and three near misses, whatever the total.
 */
public final class RuleMix {
    /** Namespace of the benchmark Deployment ({@code deployment.json}). */
    public static final String TARGET_NAMESPACE = "shop";
    public static final String SYSTEM_NAMESPACE = "remold-system";

    private static final int NEAR_MISSES_IN_TARGET = 3;
    private static final String[] OTHER_KINDS = {
        "ConfigMap", "Service", "Secret", "StatefulSet", "DaemonSet", "Job", "CronJob", "Ingress", "Pod",
        "ServiceAccount", "Role", "RoleBinding", "PersistentVolumeClaim", "HorizontalPodAutoscaler", "ReplicaSet",
    };

    private RuleMix() {
    }

    /** {@code count} rules (at least 1), exactly one of which matches the benchmark Deployment. */
    public static List<String> rules(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("rule count must be at least 1, got " + count);
        }
        List<String> rules = new ArrayList<>(count);
        rules.add(matchingRule());
        for (int i = 1; i < count; i++) {
            rules.add(switch (i % 20) {
                case 0 -> clusterWideRule(i);
                // A namespace holds a bounded number of rules: three near misses in the target namespace, the
                // others in team namespaces, so more rules means more teams, not more rules per object.
                case 1, 2 -> nearMissDeploymentRule(i,
                    i <= NEAR_MISSES_IN_TARGET ? TARGET_NAMESPACE : "team-" + i % 50);
                default -> i <= NEAR_MISSES_IN_TARGET
                    ? nearMissDeploymentRule(i, TARGET_NAMESPACE) : kindGuardedRule(i);
            });
        }
        return rules;
    }

    /** One multi-document YAML stream of {@link #rules(int)}. */
    public static String yaml(int count) {
        return String.join("---\n", rules(count));
    }

    /**
     * {@link #yaml(int)} with the matching rule reading the owner from the team's ConfigMap ({@code spec.references},
     * {@code team-<team label>} in {@link #TARGET_NAMESPACE}) instead of from the Deployment's label.
     */
    public static String referencingYaml(int count) {
        return withMatchingRule(count, "References.team", matching -> matching
            .replace("  type: Patch\n", """
                  type: Patch
                  references:
                    - name: team
                      apiVersion: v1
                      kind: ConfigMap
                      objectName: 'team-{{Target.metadata.labels.team}}'
                      onMissing: skip
                """)
            .replace("'{{Target.metadata.labels.team}}'\n", "'{{References.team.data.owner}}'\n"));
    }

    /**
     * {@link #yaml(int)} with the matching rule asking the external data provider {@value LoopbackProvider#NAME} for
     * the mirror of each {@code docker.io} image instead of rewriting it with {@code regexReplaceAll}; when the
     * provider fails (failure policy Ignore) the image stays as it is.
     */
    public static String externalYaml(int count) {
        return withMatchingRule(count, "external", matching -> matching.replace(
            "'{{SelectedItem | regexReplaceAll \"^docker[.]io/(.*)$\" \"mirror.example.com/$1\"}}'",
            "'{{ external \"" + LoopbackProvider.NAME + "\" SelectedItem | default SelectedItem }}'"));
    }

    private static String withMatchingRule(int count, String mark, UnaryOperator<String> change) {
        List<String> rules = rules(count);
        String matching = rules.getFirst();
        String changed = change.apply(matching);
        if (changed.equals(matching) || !changed.contains(mark)) {
            throw new IllegalStateException("the matching rule changed: cannot make it use " + mark);
        }
        rules.set(0, changed);
        return String.join("---\n", rules);
    }

    /**
     * Writes {@code rules.yaml} with {@code count} rules into {@code dir}, the {@link #externalYaml} variant with a
     * third argument {@code external}; used by the server load scripts.
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 2 || args.length > 3 || args.length == 3 && !args[2].equals("external")) {
            System.err.println("usage: RuleMix COUNT DIR [external]");
            System.exit(2);
        }
        Path dir = Files.createDirectories(Path.of(args[1]));
        int count = Integer.parseInt(args[0]);
        Files.writeString(dir.resolve("rules.yaml"), args.length == 3 ? externalYaml(count) : yaml(count));
    }

    private static String matchingRule() {
        return """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: checkout-hardening
              namespace: shop
            spec:
              type: Patch
              match:
                - select: '$.kind'
                  matchValue: Deployment
                - select: '$.metadata.labels.app'
                  matchValues: [checkout, cart]
                - select: '$.spec.template.spec.containers[*].image'
                  matchRegex: '^registry\\.example\\.com/'
              patch:
                - op: add
                  path: /metadata/annotations/remold.io~1owner
                  value: '{{Target.metadata.labels.team}}'
                - op: replace
                  select: '$.spec.template.spec.containers[? @.image =~ "^docker[.]io/"].image'
                  path: /spec/template/spec/containers/#0/image
                  value: '{{SelectedItem | regexReplaceAll "^docker[.]io/(.*)$" "mirror.example.com/$1"}}'
            """;
    }

    private static String kindGuardedRule(int i) {
        boolean reject = i % 7 == 0;
        String header = """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: rule-%1$d
              namespace: team-%2$d
            spec:
              type: %3$s
              executionTier: %4$d
              match:
                - select: '$.kind'
                  matchValue: %5$s
                - select: '$.metadata.labels.app'
                  matchValue: app-%1$d
            """.formatted(i, i % 50, reject ? "Reject" : "Patch", i % 3, OTHER_KINDS[i % OTHER_KINDS.length]);
        String action = reject
            ? "  rejectMessage: '{{Target.kind}} {{Target.metadata.name}} is not allowed here'\n"
            : """
                  patch:
                    - op: add
                      path: /metadata/labels/rule-%d
                      value: 'applied'
                """.formatted(i);
        return header + action;
    }

    private static String clusterWideRule(int i) {
        return """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: cluster-rule-%1$d
              namespace: remold-system
            spec:
              type: Patch
              targetNamespaceRegex: '^team-%2$d$'
              match:
                - select: '$.kind'
                  matchValues: [Deployment, StatefulSet]
                - select: '$.spec.template.spec.securityContext.runAsNonRoot == true'
                  negate: true
              patch:
                - op: add
                  path: /spec/template/spec/securityContext/runAsNonRoot
                  value: 'true'
            """.formatted(i, i % 50);
    }

    private static String nearMissDeploymentRule(int i, String namespace) {
        return """
            apiVersion: remold.io/v1beta1
            kind: ModRule
            metadata:
              name: deployment-rule-%1$d
              namespace: %2$s
            spec:
              type: Patch
              match:
                - select: '$.kind'
                  matchValue: Deployment
                - select: '$.spec.template.spec.containers[? @.name == "sidecar-%1$d"]'
                - select: 'length($.spec.template.spec.containers) > 1'
              patch:
                - op: add
                  select: '$.spec.template.spec.containers[? isUndefined(@.resources.limits)]'
                  path: /spec/template/spec/containers/#0/resources/limits
                  value: |-
                    cpu: '{{Target.metadata.annotations["cpu-limit"] | default "500m"}}'
                    memory: 256Mi
            """.formatted(i, namespace);
    }
}

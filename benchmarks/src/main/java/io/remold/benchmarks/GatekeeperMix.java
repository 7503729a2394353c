package io.remold.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Gatekeeper mutators, run unchanged by both webhooks: {@link #VARIED} mutators that cover what the differential test
 * compares (Assign with keyed lists, globs, typed keys, pathTests and fromMetadata; AssignMetadata; ModifySet merge and
 * prune; AssignImage) and that patch the benchmark Deployment in {@code shop}, then fillers of all four kinds for
 * other kinds in team namespaces, which never match it. More mutators means more teams, as in {@link RuleMix}.
 *
 * <p>Match criteria stay to what Gatekeeper decides outside a cluster and Remold without one: no
 * {@code namespaceSelector} (Remold's folder mode has no Namespace objects to select).
 */
public final class GatekeeperMix {
    private static final List<String> MUTATORS = List.of("""
        # Glob and pathTests: pods pull always, unless a container says otherwise.
        apiVersion: mutations.gatekeeper.sh/v1
        kind: Assign
        metadata:
          name: pull-policy-if-unset
        spec:
          applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
          location: "spec.containers[name: *].imagePullPolicy"
          parameters:
            pathTests:
              - subPath: "spec.containers[name: *].imagePullPolicy"
                condition: MustNotExist
            assign:
              value: Always
        """, """
        # A keyed element that must exist, in Deployments of backend and web tiers.
        apiVersion: mutations.gatekeeper.sh/v1
        kind: Assign
        metadata:
          name: envoy-memory-limit
        spec:
          applyTo: [{groups: [apps], kinds: [Deployment], versions: [v1]}]
          match:
            scope: Namespaced
            kinds: [{apiGroups: [apps], kinds: [Deployment]}]
            labelSelector:
              matchExpressions: [{key: tier, operator: In, values: [backend, web]}]
          location: "spec.template.spec.containers[name: envoy].resources.limits.memory"
          parameters:
            pathTests:
              - subPath: "spec.template.spec.containers[name: envoy]"
                condition: MustExist
            assign:
              value: 128Mi
        """, """
        # fromMetadata into a keyed element created when missing, outside kube-* namespaces.
        apiVersion: mutations.gatekeeper.sh/v1
        kind: Assign
        metadata:
          name: pod-namespace-env
        spec:
          applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
          match:
            excludedNamespaces: ["kube-*"]
          location: "spec.containers[name: app].env[name: POD_NAMESPACE].value"
          parameters:
            pathTests:
              - subPath: "spec.containers[name: app]"
                condition: MustExist
            assign:
              fromMetadata:
                field: namespace
        """, """
        # A typed key (an integer) under a glob, in team namespaces (a prefix glob) and shop.
        apiVersion: mutations.gatekeeper.sh/v1
        kind: Assign
        metadata:
          name: metrics-port-protocol
        spec:
          applyTo: [{groups: [apps], kinds: [Deployment], versions: [v1]}]
          match:
            namespaces: [shop, "team-*"]
          location: "spec.template.spec.containers[name: *].ports[containerPort: 9090].protocol"
          parameters:
            assign:
              value: TCP
        """, """
        # Add-only: an owner label unless there is one.
        apiVersion: mutations.gatekeeper.sh/v1
        kind: AssignMetadata
        metadata:
          name: owner-label
        spec:
          match:
            scope: Namespaced
            kinds: [{apiGroups: ["", apps], kinds: [Pod, Deployment]}]
          location: metadata.labels.owner
          parameters:
            assign:
              value: platform
        """, """
        # fromMetadata name (empty for an object with only generateName).
        apiVersion: mutations.gatekeeper.sh/v1
        kind: AssignMetadata
        metadata:
          name: name-annotation
        spec:
          match:
            kinds: [{apiGroups: ["*"], kinds: ["*"]}]
            namespaces: ["*p"]
          location: 'metadata.annotations."remold.io/name"'
          parameters:
            assign:
              fromMetadata:
                field: name
        """, """
        apiVersion: mutations.gatekeeper.sh/v1
        kind: ModifySet
        metadata:
          name: json-logs
        spec:
          applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
          location: "spec.containers[name: *].args"
          parameters:
            operation: merge
            values:
              fromList: [--log-format=json]
        """, """
        apiVersion: mutations.gatekeeper.sh/v1
        kind: ModifySet
        metadata:
          name: no-debug
        spec:
          applyTo: [{groups: [apps], kinds: [Deployment], versions: [v1]}]
          location: "spec.template.spec.containers[name: *].args"
          parameters:
            operation: prune
            values:
              fromList: [--debug, -v=4]
        """, """
        # Pods named web-* pull through a mirror: only the domain changes.
        apiVersion: mutations.gatekeeper.sh/v1alpha1
        kind: AssignImage
        metadata:
          name: web-mirror
        spec:
          applyTo: [{groups: [""], kinds: [Pod], versions: [v1]}]
          match:
            name: "web-*"
          location: "spec.containers[name: *].image"
          parameters:
            assignDomain: mirror.example.com
        """, """
        # Init containers of Deployments get a pinned tag (replacing a tag or a digest).
        apiVersion: mutations.gatekeeper.sh/v1alpha1
        kind: AssignImage
        metadata:
          name: init-tag
        spec:
          applyTo: [{groups: [apps], kinds: [Deployment], versions: [v1]}]
          location: "spec.template.spec.initContainers[name: *].image"
          parameters:
            assignPath: library/busybox
            assignTag: ":1.37"
        """);
    /** The mutators of the mix that are not fillers (the size of MUTATORS, checked by the test): the smallest mix. */
    public static final int VARIED = 10;

    private GatekeeperMix() {
    }

    /** {@code count} mutators (at least {@link #VARIED}) as one YAML stream. */
    public static String yaml(int count) {
        if (count < VARIED) {
            throw new IllegalArgumentException("mutator count must be at least " + VARIED + ", got " + count);
        }
        List<String> docs = new ArrayList<>();
        docs.addAll(MUTATORS);
        for (int i = 0; i < count - VARIED; i++) {
            docs.add(filler(i));
        }
        return String.join("---\n", docs);
    }

    /** Each kind of mutator in turn, for a kind of object in a team namespace; none matches the benchmark object. */
    private static String filler(int i) {
        String match = "  match:\n    namespaces: [team-%d]\n".formatted(i % 50);
        return switch (i % 4) {
            case 0 -> header("AssignMetadata", i) + match + """
                  location: 'metadata.annotations."remold.io/rule-%1$d"'
                  parameters: {assign: {value: v%1$d}}
                """.formatted(i);
            case 1 -> header("Assign", i) + match + """
                  applyTo: [{groups: [""], kinds: [ConfigMap], versions: [v1]}]
                  location: 'data."rule-%1$d"'
                  parameters: {assign: {value: v%1$d}}
                """.formatted(i);
            case 2 -> header("ModifySet", i) + match + """
                  applyTo: [{groups: [""], kinds: [Service], versions: [v1]}]
                  location: spec.externalIPs
                  parameters: {operation: merge, values: {fromList: [10.0.%d.%d]}}
                """.formatted(i / 250 % 250, i % 250);
            default -> header("AssignImage", i) + match + """
                  applyTo: [{groups: [batch], kinds: [Job], versions: [v1]}]
                  location: "spec.template.spec.containers[name: worker-%1$d].image"
                  parameters: {assignTag: ":v%1$d"}
                """.formatted(i);
        };
    }

    /** AssignImage is served as {@code v1alpha1} only (Gatekeeper v3.23), the other kinds as {@code v1}. */
    private static String header(String kind, int i) {
        return "apiVersion: mutations.gatekeeper.sh/%s\nkind: %s\nmetadata:\n  name: filler-%04d\nspec:\n"
            .formatted(kind.equals("AssignImage") ? "v1alpha1" : "v1", kind, i);
    }

    /** Writes {@code FILE} with {@code COUNT} mutators. */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: GatekeeperMix COUNT FILE");
            System.exit(2);
        }
        Path file = Path.of(args[1]).toAbsolutePath();
        Files.createDirectories(file.getParent());
        Files.writeString(file, yaml(Integer.parseInt(args[0])));
    }
}

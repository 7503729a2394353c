package io.remold.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The same rule set twice, as Remold ModRules and as Gatekeeper mutators, for comparing the two webhooks on the same
 * request: two rules patch the benchmark Deployment (an owner annotation, and the image of its {@code envoy}
 * container), and every other rule adds an annotation to some other kind in a team namespace, so it never matches.
 * Both systems answer the benchmark review with the same two JSON Patch operations.
 *
 * <p>Gatekeeper's mutators cannot rewrite part of a string, so the image is set to a constant here, unlike in
 * {@link RuleMix}; the Remold rules do exactly what the mutators do.
 */
public final class ComparisonRules {
    static final String OWNER = "payments";
    static final String IMAGE = "mirror.example.com/envoyproxy/envoy:v1.31.2";
    private static final String[][] FILLER_KINDS = {
        {"apps", "Deployment"}, {"apps", "StatefulSet"}, {"apps", "DaemonSet"}, {"", "Pod"}, {"", "ConfigMap"},
        {"", "Service"}, {"batch", "Job"},
    };

    private ComparisonRules() {
    }

    /** {@code count} ModRules (at least 2) as one YAML stream. */
    public static String remold(int count) {
        List<String> rules = new ArrayList<>();
        rules.add(modRule("owner-annotation", "shop", "Deployment", """
            - op: add
              path: /metadata/annotations/remold.io~1owner
              value: %s
            """.formatted(OWNER)));
        rules.add(modRule("envoy-image", "shop", "Deployment", """
            - op: replace
              select: '$.spec.template.spec.containers[? @.name == "envoy"]'
              path: /spec/template/spec/containers/#0/image
              value: %s
            """.formatted(IMAGE)));
        for (int i = 0; i < fillers(count); i++) {
            rules.add(modRule("filler-%04d".formatted(i), "team-" + i % 50, FILLER_KINDS[i % FILLER_KINDS.length][1],
                """
                - op: add
                  path: /metadata/annotations/remold.io~1rule-%1$d
                  value: v%1$d
                """.formatted(i)));
        }
        return String.join("---\n", rules);
    }

    /** The same {@code count} rules as Gatekeeper {@code Assign} and {@code AssignMetadata} mutators. */
    public static String gatekeeper(int count) {
        List<String> mutators = new ArrayList<>();
        mutators.add(mutator("AssignMetadata", "owner-annotation", "", "apps", "Deployment", "shop",
            "'metadata.annotations.\"remold.io/owner\"'", OWNER));
        mutators.add(mutator("Assign", "envoy-image", """
              applyTo:
                - groups: ["apps"]
                  kinds: ["Deployment"]
                  versions: ["v1"]
            """, "apps", "Deployment", "shop", "\"spec.template.spec.containers[name:envoy].image\"", IMAGE));
        for (int i = 0; i < fillers(count); i++) {
            String[] kind = FILLER_KINDS[i % FILLER_KINDS.length];
            mutators.add(mutator("AssignMetadata", "filler-%04d".formatted(i), "", kind[0], kind[1], "team-" + i % 50,
                "'metadata.annotations.\"remold.io/rule-%d\"'".formatted(i), "v" + i));
        }
        return String.join("---\n", mutators);
    }

    /** A Patch ModRule for objects of one kind in its namespace; {@code patch} is its YAML list of operations. */
    private static String modRule(String name, String namespace, String kind, String patch) {
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
                  matchValue: %s
              patch:
            %s""".formatted(name, namespace, kind, patch.indent(4));
    }

    /**
     * A Gatekeeper mutator that sets {@code location} to {@code value} in objects of one kind in one namespace;
     * {@code applyTo} is the YAML that an {@code Assign} needs under {@code spec} (empty for metadata).
     */
    private static String mutator(String type, String name, String applyTo, String group, String kind,
                                  String namespace, String location, String value) {
        return """
            apiVersion: mutations.gatekeeper.sh/v1
            kind: %s
            metadata:
              name: %s
            spec:
            %s  match:
                scope: Namespaced
                kinds:
                  - apiGroups: ["%s"]
                    kinds: ["%s"]
                namespaces: ["%s"]
              location: %s
              parameters:
                assign:
                  value: %s
            """.formatted(type, name, applyTo, group, kind, namespace, location, value);
    }

    private static int fillers(int count) {
        if (count < 2) {
            throw new IllegalArgumentException("rule count must be at least 2, got " + count);
        }
        return count - 2;
    }

    /** Writes {@code DIR/remold/rules.yaml} and {@code DIR/gatekeeper.yaml} with {@code COUNT} rules each. */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: ComparisonRules COUNT DIR");
            System.exit(2);
        }
        int count = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]);
        Files.writeString(Files.createDirectories(dir.resolve("remold")).resolve("rules.yaml"), remold(count));
        Files.writeString(dir.resolve("gatekeeper.yaml"), gatekeeper(count));
    }
}

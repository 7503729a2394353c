package io.remold.benchmarks;

import io.remold.api.YamlJson;
import io.remold.engine.Engine;
import io.remold.json.JsonTree;
import io.remold.kinitiras.KinitirasFamily;
import io.remold.kinitiras.Policy;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * kinitiras ClusterOverridePolicies for the benchmarks, in one of three forms, each as kinitiras's examples write it:
 * {@code plaintext} (two JSON Patch operations), {@code template} (three rules: an annotation and a label from
 * constants, an annotation from the object's own {@code /spec/restartPolicy}, a {@code valueRef} from current) and
 * {@code cue} (kinitiras's {@code addanno} example). The first {@code selecting} policies select the benchmark Pod
 * ({@code kinitiras-review.json}, by its kind and kinitiras's webhook label); the others select Deployments with
 * that label and are passed over. Policy {@code n} writes keys of its own ({@code added-by-n}, ...), so the result
 * does not depend on the order kinitiras lists policies in.
 *
 * <pre>
 *   KinitirasPolicies FORM COUNT FILE     # COUNT policies of FORM, all selecting the Pod, as one YAML stream
 * </pre>
 */
public final class KinitirasPolicies {
    /** The forms, as {@code compare.sh --family kinitiras} and {@code EngineBenchmark} name them. */
    public static final List<String> FORMS = List.of("plaintext", "template", "cue");
    private static final String WEBHOOK_LABEL = "kinitiras.kcloudlabs.io/webhook";

    private KinitirasPolicies() {
    }

    /** {@code count} policies of {@code form}, the first {@code selecting} of them selecting the benchmark Pod. */
    public static String yaml(String form, int count, int selecting) {
        if (!FORMS.contains(form)) {
            throw new IllegalArgumentException("unknown form " + form + ", expected one of " + FORMS);
        }
        if (selecting < 1 || selecting > count) {
            throw new IllegalArgumentException("selecting must be in 1.." + count + ", got " + selecting);
        }
        List<String> policies = new ArrayList<>(count);
        for (int n = 0; n < count; n++) {
            boolean pod = n < selecting;
            policies.add("""
                apiVersion: policy.kcloudlabs.io/v1alpha1
                kind: ClusterOverridePolicy
                metadata: {name: bench-%04d}
                spec:
                  resourceSelectors:
                  - apiVersion: %s
                    kind: %s
                    labelSelector: {matchLabels: {%s: enabled}}
                  overrideRules:
                %s""".formatted(n, pod ? "v1" : "apps/v1", pod ? "Pod" : "Deployment", WEBHOOK_LABEL,
                rules(form, n).indent(2)));
        }
        return String.join("---\n", policies);
    }

    /** Policy {@code n}'s override rules in {@code form}, all for CREATE. */
    private static String rules(String form, int n) {
        return switch (form) {
            case "plaintext" -> """
                - targetOperations: [CREATE]
                  overriders:
                    plaintext:
                    - {op: add, path: /metadata/annotations/added-by-%1$d, value: plaintext}
                    - {op: add, path: /metadata/labels/policy-%1$d, value: applied}
                """.formatted(n);
            case "template" -> """
                - targetOperations: [CREATE]
                  overriders:
                    template: {type: annotations, operation: replace, path: added-by-%1$d, value: {string: template}}
                - targetOperations: [CREATE]
                  overriders:
                    template: {type: labels, operation: replace, path: policy-%1$d, value: {string: applied}}
                - targetOperations: [CREATE]
                  overriders:
                    template:
                      type: annotations
                      operation: replace
                      path: restart-policy-%1$d
                      valueRef: {from: current, path: /spec/restartPolicy}
                """.formatted(n);
            default -> """
                - targetOperations: [CREATE]
                  overriders:
                    cue: |-
                      object: _ @tag(object)

                      patches: [
                        if object.metadata.annotations == _|_ {
                          {
                            op: "add"
                            path: "/metadata/annotations"
                            value: {}
                          }
                        },
                        {
                          op: "add"
                          path: "/metadata/annotations/added-by-%d"
                          value: "cue"
                        }
                      ]
                """.formatted(n);
        };
    }

    /** An engine of {@link #yaml}'s policies, as the server compiles kinitiras policies (CUE in the CUE workers). */
    static Engine engine(String form, int count, int selecting) {
        var family = new KinitirasFamily();
        var policies = new TreeMap<String, Policy>();
        for (JsonValue manifest : YamlJson.parse(yaml(form, count, selecting), "kinitiras-" + form)) {
            Policy policy = family.parse((JsonObject) manifest);
            policies.put(policy.id(), policy);
        }
        return Engine.builder().stage(family.compile(policies).stage().orElseThrow()).build();
    }

    /** The benchmark AdmissionReview: a CREATE of a ~2 KB Pod in {@code shop}, with kinitiras's webhook label. */
    static JsonObject review() throws IOException {
        try (InputStream in = KinitirasPolicies.class.getResourceAsStream("kinitiras-review.json")) {
            return (JsonObject) JsonTree.parse(in.readAllBytes());
        }
    }

    /** The Pod of {@link #review()}. */
    static JsonValue pod() throws IOException {
        return review().getJsonObject("request").get("object");
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: KinitirasPolicies FORM COUNT FILE   (FORM: " + String.join(", ", FORMS) + ")");
            System.exit(2);
        }
        int count = Integer.parseInt(args[1]);
        Path file = Path.of(args[2]);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, yaml(args[0], count, count));
    }
}

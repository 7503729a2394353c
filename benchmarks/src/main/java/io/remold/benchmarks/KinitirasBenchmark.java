package io.remold.benchmarks;

import io.remold.api.AdmissionOperation;
import io.remold.api.YamlJson;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.Family;
import io.remold.kinitiras.KinitirasFamily;
import io.remold.kinitiras.Policy;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One {@code /mutate} decision for a Pod against kinitiras policies: {@code policies} ClusterOverridePolicies, one of
 * which selects the Pod and adds an annotation in the given {@code form} (kinitiras's own {@code addanno} examples:
 * {@code plaintext}, a {@code template} run natively, or {@code cue} run by cuelang.org/go in the worker process);
 * the others select Deployments and are passed over by their selectors.
 * Run: {@code java -jar benchmarks/target/remold-benchmarks.jar KinitirasBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx512m"})
public class KinitirasBenchmark {
    @Param({"plaintext", "template", "cue"})
    public String form;

    @Param({"1", "100"})
    public int policies;

    private Engine engine;
    private AdmissionRequest request;

    @Setup(Level.Trial)
    public void setUp() {
        var family = new KinitirasFamily();
        var rules = new TreeMap<String, Policy>();
        rules.put("p-0000", family.parse(policy("p-0000", "Pod", overriders(form))));
        for (int i = 1; i < policies; i++) {
            String name = "p-%04d".formatted(i);
            rules.put(name, family.parse(policy(name, "Deployment", overriders(form))));
        }
        Family.Compiled compiled = family.compile(rules);
        engine = Engine.builder().stage(compiled.stage().orElseThrow()).build();
        request = new AdmissionRequest(AdmissionOperation.CREATE, "shop", JsonTree.parse("""
            {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
             "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}
            """.getBytes(StandardCharsets.UTF_8)), null, null, null, false);
        Decision decision = engine.mutate(request);
        if (!decision.patch().toString().contains("added-by")) {
            throw new IllegalStateException("the " + form + " policy did not patch the Pod: " + decision);
        }
    }

    /** The {@code overriders} of the selecting policy, as kinitiras's examples write them. */
    private static String overriders(String form) {
        return switch (form) {
            case "plaintext" -> """
                plaintext:
                - {op: add, path: /metadata/annotations, value: {}}
                - {op: add, path: /metadata/annotations/added-by, value: plaintext}
                """;
            case "template" -> """
                template: {type: annotations, operation: add, path: added-by, value: {string: template}}
                """;
            case "cue" -> """
                cue: |-
                  object: _ @tag(object)
                  patches: [
                    if object.metadata.annotations == _|_ {
                      {op: "add", path: "/metadata/annotations", value: {}}
                    },
                    {op: "add", path: "/metadata/annotations/added-by", value: "cue"},
                  ]
                """;
            default -> throw new IllegalArgumentException(form);
        };
    }

    private static JsonObject policy(String name, String kind, String overriders) {
        String yaml = """
            apiVersion: policy.kcloudlabs.io/v1alpha1
            kind: ClusterOverridePolicy
            metadata: {name: %s}
            spec:
              resourceSelectors: [{apiVersion: %s, kind: %s}]
              overrideRules:
              - targetOperations: [CREATE]
                overriders:
            %s""".formatted(name, kind.equals("Pod") ? "v1" : "apps/v1", kind,
            overriders.indent(6));
        return (JsonObject) YamlJson.parse(yaml, name).getFirst();
    }

    @Benchmark
    public Decision mutate() {
        return engine.mutate(request);
    }
}

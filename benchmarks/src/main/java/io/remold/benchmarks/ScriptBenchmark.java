package io.remold.benchmarks;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRules;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.scripting.ScriptHost;
import io.remold.scripting.ScriptLimits;
import io.remold.scripting.ScriptRule;
import io.remold.scripting.Scripts;
import jakarta.json.Json;
import java.io.IOException;
import java.util.ArrayList;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code POST /mutate} of the ~5 KB benchmark Deployment against N rules that each add one label: trivial
 * {@code jsa_mutate} scripts (ClusterJsAdmission, GraalJS in the sandbox, warm) or ModRules of type Patch doing the
 * same. Run: {@code java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow
 * -jar benchmarks/target/remold-benchmarks.jar ScriptBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow"})
public class ScriptBenchmark {
    @Param({"1", "100"})
    public int rules;

    @Param({"script", "modrule"})
    public String family;

    private ScriptHost host;
    private Engine engine;
    private AdmissionRequest request;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        if (family.equals("script")) {
            host = Scripts.host(ScriptLimits.defaults());
            var scripts = new ArrayList<ScriptRule>();
            for (int i = 0; i < rules; i++) {
                scripts.add(Scripts.parse(Json.createObjectBuilder()
                        .add("apiVersion", "momiji.com/v1").add("kind", "ClusterJsAdmission")
                        .add("metadata", Json.createObjectBuilder().add("name", "label-" + i))
                        .add("spec", Json.createObjectBuilder().add("kinds", Json.createArrayBuilder().add("deployments"))
                                .add("js", "function jsa_mutate(op, obj) {\n"
                                        + "  obj.metadata.labels = obj.metadata.labels || {};\n"
                                        + "  obj.metadata.labels['bench-" + i + "'] = 'yes';\n"
                                        + "  return { Allowed: true, Result: obj };\n}\n"))
                        .build()));
            }
            engine = Engine.builder().stage(host.stage(scripts)).build();
        } else {
            var yaml = new StringBuilder();
            for (int i = 0; i < rules; i++) {
                yaml.append("""
                        apiVersion: remold.io/v1beta1
                        kind: ModRule
                        metadata: {name: label-%d}
                        spec:
                          type: Patch
                          match: [{select: '$.kind', matchValue: Deployment}]
                          patch: [{op: add, path: /metadata/labels/bench-%d, value: 'yes'}]
                        ---
                        """.formatted(i, i));
            }
            engine = Engine.builder().rules(ModRules.parse(yaml.toString(), "label-rules")).build();
        }
        request = new AdmissionRequest(AdmissionOperation.CREATE, "default", EngineBenchmark.deployment(), null, null,
                null, false);
        // Warm and check: every rule adds its label, none fails.
        for (int i = 0; i < 50; i++) {
            Decision decision = engine.mutate(request);
            if (decision.outcomes().stream().anyMatch(o -> o.error() != null) || decision.patch().isEmpty()) {
                throw new IllegalStateException("a rule failed or nothing was patched: " + decision.outcomes());
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (host != null) {
            host.close();
        }
    }

    @Benchmark
    public Decision mutate() {
        return engine.mutate(request);
    }
}

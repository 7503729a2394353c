package io.remold.benchmarks;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRules;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.json.JsonTree;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
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
 * One admission decision for a ~5 KB Deployment against a {@link RuleMix} of N rules, one of which matches.
 * Run: {@code java -jar benchmarks/target/remold-benchmarks.jar EngineBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class EngineBenchmark {
    @Param({"10", "100", "1000", "10000"})
    public int rules;

    private Engine engine;
    private AdmissionRequest request;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        engine = Engine.builder()
            .systemNamespace(RuleMix.SYSTEM_NAMESPACE)
            .rules(ModRules.parse(RuleMix.yaml(rules), "rule-mix-" + rules))
            .build();
        if (engine.ruleCount() != rules) {
            throw new IllegalStateException("expected " + rules + " compiled rules, got " + engine.ruleCount());
        }
        request = new AdmissionRequest(AdmissionOperation.CREATE, RuleMix.TARGET_NAMESPACE, deployment(),
            null, null, null, false);
        Decision decision = engine.mutate(request);
        if (decision.patch().isEmpty()) {
            throw new IllegalStateException("the matching rule did not patch the benchmark Deployment");
        }
    }

    /** Patch rules: the decision of {@code POST /mutate}. */
    @Benchmark
    public Decision mutate() {
        return engine.mutate(request);
    }

    /** Reject rules: the decision of {@code POST /validate}. */
    @Benchmark
    public Decision validate() {
        return engine.validate(request);
    }

    /** The Deployment as the server holds it: read by {@link JsonTree}. */
    static JsonValue deployment() throws IOException {
        try (InputStream in = EngineBenchmark.class.getResourceAsStream("deployment.json")) {
            return JsonTree.parse(in.readAllBytes());
        }
    }
}

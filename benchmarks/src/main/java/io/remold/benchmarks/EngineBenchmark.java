package io.remold.benchmarks;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRules;
import io.remold.api.YamlJson;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.ReferenceResolver;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * One admission decision for a ~5 KB Deployment against N rules of one family: a {@link RuleMix} of ModRules, one of
 * which matches, or a {@link GatekeeperMix} of Gatekeeper mutators, four of which match. Family {@code referencing}
 * is the ModRules mix with the matching rule reading its owner from the team's ConfigMap ({@code spec.references}),
 * answered from a map of ready JSON trees as the server's informer store answers.
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

    @Param({"modrules", "gatekeeper", "referencing"})
    public String family;

    private Engine engine;
    private AdmissionRequest request;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        engine = family.equals("gatekeeper") ? mutators(rules) : Engine.builder()
            .systemNamespace(RuleMix.SYSTEM_NAMESPACE)
            .rules(ModRules.parse(family.equals("referencing") ? RuleMix.referencingYaml(rules) : RuleMix.yaml(rules),
                "rule-mix-" + rules))
            .references(teamConfigMaps())
            .build();
        if (engine.ruleCount() + engine.stageRuleCount() != rules) {
            throw new IllegalStateException("expected " + rules + " rules, got " + engine.ruleCount() + " ModRules and "
                + engine.stageRuleCount() + " mutators");
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

    /** The ConfigMap of the benchmark Deployment's team, looked up by {@code namespace/name} as in an informer store. */
    static ReferenceResolver teamConfigMaps() {
        Map<String, JsonValue> store = new ConcurrentHashMap<>();
        store.put(RuleMix.TARGET_NAMESPACE + "/team-payments", JsonTree.parse("""
            {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "team-payments", "namespace": "shop", "resourceVersion": "42"},
             "data": {"owner": "payments", "costCentre": "cc-4711"}}
            """.getBytes(StandardCharsets.UTF_8)));
        return query -> new ReferenceResolver.Resolution(store.get(query.namespace() + "/" + query.name()),
            "benchmark store");
    }

    /** An engine of {@code count} {@link GatekeeperMix} mutators and no ModRules, as the server builds it. */
    static Engine mutators(int count) {
        List<JsonValue> manifests = YamlJson.parse(GatekeeperMix.yaml(count), "gatekeeper-mix-" + count);
        return Engine.builder()
            .stage(Gatekeeper.stage(manifests.stream().map(m -> Gatekeeper.parse((JsonObject) m)).toList()))
            .build();
    }

    /** The Deployment as the server holds it: read by {@link JsonTree}. */
    static JsonValue deployment() throws IOException {
        try (InputStream in = EngineBenchmark.class.getResourceAsStream("deployment.json")) {
            return JsonTree.parse(in.readAllBytes());
        }
    }
}

package io.remold.benchmarks;

import io.remold.api.AdmissionOperation;
import io.remold.api.ModRules;
import io.remold.api.Provider;
import io.remold.api.YamlJson;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import io.remold.engine.ReferenceResolver;
import io.remold.gatekeeper.Gatekeeper;
import io.remold.json.JsonTree;
import io.remold.server.external.HttpsProviders;
import io.remold.templating.ExternalData;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
 * One admission decision for a ~5 KB Deployment against N rules of one family: a {@link RuleMix} of ModRules, one of
 * which matches, or a {@link GatekeeperMix} of Gatekeeper mutators, four of which match. Family {@code referencing}
 * is the ModRules mix with the matching rule reading its owner from the team's ConfigMap ({@code spec.references}),
 * answered from a map of ready JSON trees as the server's informer store answers. Family {@code external} is the
 * ModRules mix with the matching rule asking an external data provider for each image's mirror
 * ({@link RuleMix#externalYaml}), through the server's own {@link HttpsProviders} from a {@link LoopbackProvider}:
 * the set-up's decision asks it once per distinct key, every measured decision answers from the cache, and the
 * tear-down prints the provider's calls and fails the trial if any key was asked twice.
 * Families {@code kinitiras-plaintext}, {@code kinitiras-template} and {@code kinitiras-cue} decide on a ~2 KB Pod
 * against N kinitiras ClusterOverridePolicies of that form ({@link KinitirasPolicies}), one of which selects the Pod;
 * CUE runs in the CUE workers (cuelang.org/go), so that family's figure is mostly their round trip.
 * Run: {@code java -jar benchmarks/target/remold-benchmarks.jar EngineBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class EngineBenchmark {
    private static final String KINITIRAS = "kinitiras-";

    @Param({"10", "100", "1000", "10000"})
    public int rules;

    @Param({"modrules", "gatekeeper", "referencing", "external", "kinitiras-plaintext", "kinitiras-template",
        "kinitiras-cue"})
    public String family;

    private Engine engine;
    private AdmissionRequest request;
    private Path providerDir;
    private LoopbackProvider provider;
    private HttpsProviders providers;

    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
        if (family.startsWith(KINITIRAS)) {
            kinitirasPolicies(family.substring(KINITIRAS.length()));
            return;
        }
        ExternalData external = ExternalData.NONE;
        if (family.equals("external")) {
            providerDir = Files.createTempDirectory("remold-provider");
            provider = new LoopbackProvider(providerDir, false);
            providers = new HttpsProviders();
            providers.use(List.of(Provider.fromJson((JsonObject) YamlJson.parse(
                LoopbackProvider.manifest(provider.url("healthy"), provider.caBundle, "24h"), "provider").getFirst(),
                "provider")));
            external = providers;
        }
        engine = family.equals("gatekeeper") ? mutators(rules) : Engine.builder()
            .systemNamespace(RuleMix.SYSTEM_NAMESPACE)
            .rules(ModRules.parse(switch (family) {
                case "referencing" -> RuleMix.referencingYaml(rules);
                case "external" -> RuleMix.externalYaml(rules);
                default -> RuleMix.yaml(rules);
            }, "rule-mix-" + rules))
            .references(teamConfigMaps())
            .externalData(external)
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
        if (provider != null && !decision.patch().toString().contains("mirror.example.com/envoyproxy")) {
            throw new IllegalStateException("the provider's answer is not in the patch: " + decision.patch());
        }
    }

    /** The kinitiras families: {@code rules} policies of {@code form}, one selecting the benchmark Pod. */
    private void kinitirasPolicies(String form) throws IOException {
        engine = KinitirasPolicies.engine(form, rules, 1);
        if (engine.stageRuleCount() != rules) {
            throw new IllegalStateException("expected " + rules + " policies, got " + engine.stageRuleCount());
        }
        request = new AdmissionRequest(AdmissionOperation.CREATE, RuleMix.TARGET_NAMESPACE, KinitirasPolicies.pod(),
            null, null, null, false);
        Decision decision = engine.mutate(request);
        if (!decision.patch().toString().contains("added-by-0")) {
            throw new IllegalStateException("the selecting " + form + " policy did not patch the Pod: " + decision);
        }
    }

    /** Family {@code external}: one call per distinct key, or the measured decisions were not all cached. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (provider == null) {
            return;
        }
        providers.close();
        provider.close();
        try (Stream<Path> files = Files.list(providerDir)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(providerDir);
        Map<String, Long> asked = provider.asked();
        System.out.println("\nprovider calls: " + provider.calls() + ", keys asked: " + asked);
        if (provider.calls() != asked.size() || asked.values().stream().anyMatch(n -> n != 1)) {
            throw new IllegalStateException("the provider was asked more than once per key: " + asked);
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

package io.remold.e2e;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.matchesPattern;

/**
 * Issue 27 at scale, on the real API server: a namespace of thousands of objects stays within the stated bounds of
 * docs/reports.md (50 results, 4 KiB a result, 256 KiB a report) and docs/existing.md (an impact scan holds one page of
 * 250 objects), with exact counts, and the server within the memory of its container: the image's JVM flags (a
 * 128 MiB heap that exits on OutOfMemoryError); the process's peak resident memory against the bundle's 256 MiB
 * limit is printed.
 */
@ExtendWith(Remold.class)
class LargeNamespaceIT {
    private static final String SCAN_NAMESPACE = "e2e-large-scan";
    private static final String ADMISSION_NAMESPACE = "e2e-large-admission";
    private static final int CONFIG_MAPS = 3_000;
    /** Every tenth ConfigMap is labelled {@code tier: restricted}, which the Reject rule would refuse. */
    private static final int RESTRICTED_EVERY = 10;
    private static final int RESTRICTED = CONFIG_MAPS / RESTRICTED_EVERY;
    /** Creates in flight at once, as a controller's workers would send them. */
    private static final int CREATORS = 8;
    /** The bounds of docs/reports.md (ReportLimits.DEFAULT) and of the bundle's server container (Bundle). */
    private static final int RESULTS_PER_REPORT = 50;
    private static final int BYTES_PER_RESULT = 4 * 1024;
    private static final int BYTES_PER_REPORT = 256 * 1024;
    private static final long HEAP_BYTES = 128L * 1024 * 1024;
    private static final long CONTAINER_MEMORY_BYTES = 256L * 1024 * 1024;
    private static final int CONTAINER_CPUS = 1;
    /** Objects per LIST page of an impact scan (docs/existing.md: one page in memory at a time). */
    private static final int PAGE_SIZE = 250;
    /** The impact scans run at this rate so that the test is quick; the default (500/s) would take 12 s. */
    private static final String IMPACT_RATE = "100000";

    private static final String ANNOTATE = "annotate-all";
    private static final String REFUSE = "refuse-restricted";
    private static final String LABEL = "label-all";
    /**
     * What the Shadow Patch rule would add to every ConfigMap: an annotation longer than a report's result may be,
     * so that every result is cut to the 4 KiB bound and the 50 of a report come near its 256 KiB bound.
     */
    private static final String LONG_VALUE = "policy-".repeat(1000);
    private static final Gson COMPACT = new GsonBuilder().disableHtmlEscaping().create();

    @BeforeAll
    static void theServerWithItsContainersMemory(Remold.Installation remold) {
        var options = new ArrayList<>(RemoldServer.DEFAULT_OPTIONS);
        options.addAll(List.of("--impact-rate", IMPACT_RATE));
        var jvmOptions = new ArrayList<>(Remold.deploymentJvmOptions());
        // The container's CPU limit (1), which the JVM reads from its cgroup: as many compiler and GC threads, and
        // their native memory, as in the container.
        jvmOptions.add("-XX:ActiveProcessorCount=" + CONTAINER_CPUS);
        remold.server().restart(jvmOptions, options);
        // The serial collector reports -Xmx less one survivor space (at most a tenth of the young generation).
        assertThat("the image's heap bound", metric(remold.server(), "remold_jvm_memory_max_bytes\\{area=\"heap\"}"),
                both(lessThanOrEqualTo(HEAP_BYTES)).and(greaterThan(HEAP_BYTES - 4 * 1024 * 1024)));
    }

    @AfterAll
    static void theSharedServerAgain(Remold.Installation remold) {
        remold.server().restart(List.of(), RemoldServer.DEFAULT_OPTIONS);
        remold.server().awaitRulesInSync();
    }

    private static String shadowRule(String namespace, String name, String spec) {
        return """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata:
                  name: %s
                  namespace: %s
                spec:
                  mode: Shadow
                %s""".formatted(name, namespace, spec.indent(2));
    }

    private static final String ANNOTATE_SPEC = """
            type: Patch
            match:
              - select: '$.kind'
                matchValue: ConfigMap
            patch:
              - op: add
                path: /metadata/annotations/e2e.remold.io~1policy
                value: %s
            """.formatted(LONG_VALUE);

    private static final String REFUSE_SPEC = """
            type: Reject
            match:
              - select: '$.kind'
                matchValue: ConfigMap
              - select: '$.metadata.labels.tier'
                matchValue: restricted
            rejectMessage: 'configmap {{ Target.metadata.name }} is restricted'
            """;

    private static final String LABEL_SPEC = """
            type: Patch
            admissionOperations: [CREATE]
            match:
              - select: '$.kind'
                matchValue: ConfigMap
            patch:
              - op: add
                path: /metadata/labels/owner
                value: team-a
            """;

    @Test
    void anImpactScanOfThreeThousandObjectsCountsExactlyAndItsReportsStayWithinTheirBounds(
            Remold.Installation remold) {
        RemoldServer server = remold.server();
        Steps.ensureNamespace(SCAN_NAMESPACE);
        try {
            Duration creating = createConfigMaps(SCAN_NAMESPACE);
            String before = resourceVersions(SCAN_NAMESPACE);
            long pid = server.pid();
            long heapBefore = metric(server, "remold_jvm_memory_used_bytes\\{area=\"heap\"}");

            var apiServerBefore = ApiServerMetrics.scrapeControlPlane();
            long start = System.nanoTime();
            Cluster.apply(shadowRule(SCAN_NAMESPACE, ANNOTATE, ANNOTATE_SPEC) + "---\n"
                    + shadowRule(SCAN_NAMESPACE, REFUSE, REFUSE_SPEC));
            Wait.until("both rules' scans to complete", Duration.ofSeconds(120),
                    () -> impact(ANNOTATE, "{.status.impact.state}").equals("Complete")
                            && impact(REFUSE, "{.status.impact.state}").equals("Complete"));
            Duration scanning = Duration.ofNanos(System.nanoTime() - start);
            // Nothing else lists ConfigMaps meanwhile (the test polls only the rules): these are the scans' pages.
            assertThat("LISTs of ConfigMaps: each scan reads pages of 250", ApiServerMetrics.scrapeControlPlane()
                    .delta(apiServerBefore, "apiserver_request_total", "verb=\"LIST\"", "resource=\"configmaps\""),
                    equalTo(2.0 * CONFIG_MAPS / PAGE_SIZE));

            assertThat(Cluster.stored(Manifest.REMOLD_RULES, SCAN_NAMESPACE, ANNOTATE), impact(ANNOTATE, COUNTS),
                    equalTo(CONFIG_MAPS + "," + CONFIG_MAPS + ",0,0"));
            assertThat(Cluster.stored(Manifest.REMOLD_RULES, SCAN_NAMESPACE, REFUSE), impact(REFUSE, COUNTS),
                    equalTo(CONFIG_MAPS + ",0," + RESTRICTED + ",0"));

            String annotated = served(awaitReport(SCAN_NAMESPACE, ANNOTATE, Map.of("fail", (long) CONFIG_MAPS)));
            for (JsonElement result : assertWithinBounds(annotated, CONFIG_MAPS)) {
                assertThat("each patch is cut to fit its result", result.getAsJsonObject()
                        .getAsJsonObject("properties").get("patch").getAsString(), matchesPattern(
                        "(?s)\\[\\{\"op\":\"add\",\"path\":\"/metadata/annotations\".*…\\[truncated: \\d+ bytes]"));
            }
            String refused = served(awaitReport(SCAN_NAMESPACE, REFUSE,
                    Map.of("fail", (long) RESTRICTED, "pass", (long) CONFIG_MAPS - RESTRICTED)));
            assertWithinBounds(refused, RESTRICTED);
            awaitClusterReport(SCAN_NAMESPACE, ANNOTATE, Map.of("fail", (long) CONFIG_MAPS, "pass", 0L));
            awaitClusterReport(SCAN_NAMESPACE, REFUSE,
                    Map.of("fail", (long) RESTRICTED, "pass", (long) CONFIG_MAPS - RESTRICTED));

            assertThat("Shadow rules' scans change nothing", resourceVersions(SCAN_NAMESPACE), equalTo(before));
            long heapAfter = metric(server, "remold_jvm_memory_used_bytes\\{area=\"heap\"}");
            Resident resident = assertSameProcessWithinMemory(server, pid);
            System.out.printf("LARGE scan: %d ConfigMaps created in %d ms; both scans complete %d ms after the rules"
                            + " (%s, %s); Reports %d and %d bytes; heap used %d -> %d MiB; %s%n",
                    CONFIG_MAPS, creating.toMillis(), scanning.toMillis(), scanTime(ANNOTATE), scanTime(REFUSE),
                    bytes(annotated), bytes(refused), heapBefore >> 20, heapAfter >> 20, resident);
        } finally {
            cleanUp(server, SCAN_NAMESPACE, ANNOTATE, REFUSE);
        }
    }

    @Test
    void threeThousandCreatesUnderAShadowRuleAreEachCountedAndItsReportStaysWithinItsBounds(
            Remold.Installation remold) {
        RemoldServer server = remold.server();
        Steps.ensureNamespace(ADMISSION_NAMESPACE);
        Cluster.apply(shadowRule(ADMISSION_NAMESPACE, LABEL, LABEL_SPEC));
        try {
            Steps.awaitReady(LABEL, ADMISSION_NAMESPACE);
            server.awaitRulesInSync();
            long pid = server.pid();
            String rule = ADMISSION_NAMESPACE + "/" + LABEL;
            long verdictsBefore = admissionVerdicts(server, rule);
            long droppedBefore = metric(server, "remold_shadow_dropped_total");

            Duration creating = createConfigMaps(ADMISSION_NAMESPACE);
            // Each create's Shadow evaluation runs after its answer, on the shadow thread: counted, or dropped.
            Wait.until("every create's Shadow verdict to be counted or dropped", Duration.ofSeconds(60),
                    () -> admissionVerdicts(server, rule) - verdictsBefore
                            + metric(server, "remold_shadow_dropped_total") - droppedBefore >= CONFIG_MAPS);
            long verdicts = admissionVerdicts(server, rule) - verdictsBefore;
            long dropped = metric(server, "remold_shadow_dropped_total") - droppedBefore;
            assertThat("one verdict per create at most", verdicts, lessThanOrEqualTo((long) CONFIG_MAPS));
            assertThat("the creates not counted were dropped", verdicts, greaterThanOrEqualTo(CONFIG_MAPS - dropped));

            String report = served(awaitReport(ADMISSION_NAMESPACE, LABEL, Map.of("fail", verdicts)));
            assertWithinBounds(report, verdicts);
            awaitClusterReport(ADMISSION_NAMESPACE, LABEL, Map.of("fail", verdicts));
            assertThat("a Shadow rule labels nothing", Cluster.kubectl("get", "configmaps", "-n",
                    ADMISSION_NAMESPACE, "-l", "owner", "-o", "name").run().orFail().stdout(), equalTo(""));
            Resident resident = assertSameProcessWithinMemory(server, pid);
            System.out.printf("LARGE admission: %d ConfigMaps created in %d ms, %d Shadow verdicts, %d dropped;"
                    + " Report %d bytes; %s%n", CONFIG_MAPS, creating.toMillis(), verdicts, dropped, bytes(report),
                    resident);
        } finally {
            cleanUp(server, ADMISSION_NAMESPACE, LABEL);
        }
    }

    private static final String COUNTS = "{.status.impact.evaluated},{.status.impact.wouldChange},"
            + "{.status.impact.wouldRefuse},{.status.impact.failed}";

    private static String impact(String rule, String fields) {
        return Cluster.kubectl("get", Manifest.REMOLD_RULES, rule, "-n", SCAN_NAMESPACE, "-o", "jsonpath=" + fields)
                .run().orFail().stdout();
    }

    /** The scan's own account of its time, from its status (whole seconds). */
    private static String scanTime(String rule) {
        String[] times = impact(rule, "{.status.impact.startedAt} {.status.impact.completedAt}").split(" ");
        return rule + " " + Duration.between(Instant.parse(times[0]), Instant.parse(times[1])).toSeconds() + " s";
    }

    /**
     * Creates the ConfigMaps through the API server, and so through the webhooks, {@link #CREATORS} at a time: each
     * has 1 KiB of data, every tenth is labelled restricted. Returns how long it took.
     */
    private static Duration createConfigMaps(String namespace) {
        var api = new CoreV1Api(Cluster.api());
        long start = System.nanoTime();
        try (var creators = Executors.newFixedThreadPool(CREATORS)) {
            List<Future<V1ConfigMap>> creates = new ArrayList<>();
            for (int i = 0; i < CONFIG_MAPS; i++) {
                V1ConfigMap configMap = configMap(namespace, i);
                creates.add(creators.submit(() -> api.createNamespacedConfigMap(namespace, configMap).execute()));
            }
            for (var create : creates) {
                create.get();
            }
        } catch (ExecutionException e) {
            throw new AssertionError("a create failed: " + (e.getCause() instanceof ApiException refused
                    ? refused.getCode() + " " + refused.getResponseBody() : e.getCause()), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted creating ConfigMaps", e);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static V1ConfigMap configMap(String namespace, int i) {
        var metadata = new V1ObjectMeta().name("cm-%04d".formatted(i)).namespace(namespace);
        if (i % RESTRICTED_EVERY == 0) {
            metadata.labels(Map.of("tier", "restricted"));
        }
        return new V1ConfigMap().metadata(metadata).data(Map.of("payload", "%04d".formatted(i).repeat(256)));
    }

    /** Every ConfigMap's name and resourceVersion: equal before and after means none was written. */
    private static String resourceVersions(String namespace) {
        return Cluster.kubectl("get", "configmaps", "-n", namespace, "-o", "jsonpath={range .items[*]}"
                + "{.metadata.name}={.metadata.resourceVersion}{\"\\n\"}{end}").run().orFail().stdout();
    }

    /** Waits for the rule's Report in the namespace to hold these summary counts, and returns it. */
    private static JsonObject awaitReport(String namespace, String rule, Map<String, Long> summary) {
        String id = namespace + "/" + rule;
        Wait.until("the Report of " + id + " with " + summary, Duration.ofSeconds(60),
                () -> hasSummary(Reports.report(id, namespace), summary));
        return Reports.report(id, namespace);
    }

    private static void awaitClusterReport(String namespace, String rule, Map<String, Long> summary) {
        String id = namespace + "/" + rule;
        Wait.until("the ClusterReport of " + id + " with " + summary, Duration.ofSeconds(60),
                () -> hasSummary(Reports.clusterReport(id), summary));
    }

    private static boolean hasSummary(JsonObject report, Map<String, Long> summary) {
        return report != null && summary.entrySet().stream()
                .allMatch(count -> Reports.summary(report, count.getKey()) == count.getValue());
    }

    /** The Report as the API server serves it: compact JSON, metadata and managed fields included. */
    private static String served(JsonObject report) {
        JsonObject metadata = report.getAsJsonObject("metadata");
        return Cluster.kubectl("get", "--raw", "/apis/openreports.io/v1alpha1/namespaces/"
                + metadata.get("namespace").getAsString() + "/reports/" + metadata.get("name").getAsString())
                .run().orFail().stdout();
    }

    /**
     * Asserts a Report of {@code counted} verdicts, as served, against the bounds: at most 50 results, each at most
     * 4 KiB of JSON, the rest counted as omitted, and the whole object at most 256 KiB. Returns its results.
     */
    private static List<JsonElement> assertWithinBounds(String served, long counted) {
        JsonObject report = JsonParser.parseString(served).getAsJsonObject();
        var results = report.getAsJsonArray("results").asList();
        assertThat("results listed", results, hasSize((int) Math.min(counted, RESULTS_PER_REPORT)));
        assertThat("bytes of each result", results.stream()
                .map(r -> COMPACT.toJson(r).getBytes(StandardCharsets.UTF_8).length).toList(),
                everyItem(lessThanOrEqualTo(BYTES_PER_RESULT)));
        JsonElement omitted = report.getAsJsonObject("metadata").getAsJsonObject("annotations")
                .get("remold.io/results-omitted");
        assertThat("results counted, not listed", omitted == null ? 0 : omitted.getAsLong(),
                equalTo(counted - results.size()));
        assertThat("bytes of the Report as served", bytes(served), lessThanOrEqualTo(BYTES_PER_REPORT));
        return results;
    }

    private static int bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    /** The server's resident memory: its peak (VmHWM) and now (VmRSS), in bytes. */
    private record Resident(long peak, long now) {
        @Override
        public String toString() {
            return "peak RSS " + (peak >> 20) + " MiB, now " + (now >> 20) + " MiB";
        }
    }

    /**
     * Asserts that the server is the process it was (it never exited, which the image's flags make it do on
     * OutOfMemoryError), and reads its resident memory.
     */
    private static Resident assertSameProcessWithinMemory(RemoldServer server, long pid) {
        assertThat("the server is up, never restarted", server.alive() ? server.pid() : -1, equalTo(pid));
        String status;
        try {
            status = Files.readString(Path.of("/proc", String.valueOf(pid), "status"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var resident = new Resident(kibibytes(status, "VmHWM") * 1024, kibibytes(status, "VmRSS") * 1024);
        // Printed, not asserted: the peak is the JIT compilers' working memory during the burst of creates (native
        // memory tracking: the heap stays at its minimum), 231-246 MiB of the 256 MiB limit on this machine, too
        // close to assert on a loaded one; the cluster-mode memory model is issue 30's (BENCHMARKS.md).
        System.out.println("LargeNamespaceIT resident memory: " + resident + " (container limit "
                + (CONTAINER_MEMORY_BYTES >> 20) + " MiB)");
        return resident;
    }

    private static long kibibytes(String procStatus, String field) {
        Matcher m = Pattern.compile("(?m)^" + field + ":\\s+(\\d+) kB$").matcher(procStatus);
        assertThat(field + " in " + procStatus, m.find());
        return Long.parseLong(m.group(1));
    }

    /** A gauge or counter without labels of its own, or one series named with its labels (a regex). */
    private static long metric(RemoldServer server, String series) {
        Matcher m = Pattern.compile("(?m)^" + series + " (\\d+)").matcher(server.admin("/metrics").orFail().stdout());
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** The rule's Shadow verdicts on admission requests, whatever they were. */
    private static long admissionVerdicts(RemoldServer server, String rule) {
        Matcher m = Pattern.compile("(?m)^remold_rule_verdicts_total\\{family=\"ModRule\",rule=\"" + Pattern.quote(rule)
                + "\",mode=\"Shadow\",verdict=\"\\w+\",source=\"admission\"} (\\d+)$")
                .matcher(server.admin("/metrics").orFail().stdout());
        long sum = 0;
        while (m.find()) {
            sum += Long.parseLong(m.group(1));
        }
        return sum;
    }

    /** The rules first (no Shadow verdict for the deletes), then the ConfigMaps, in one call (deletecollection). */
    private static void cleanUp(RemoldServer server, String namespace, String... rules) {
        for (String rule : rules) {
            Cluster.kubectl("delete", Manifest.REMOLD_RULES, rule, "-n", namespace, "--ignore-not-found").run();
        }
        if (!server.alive()) {
            server.start(); // the scenario failed on it already
        }
        server.awaitRulesInSync();
        try {
            new CoreV1Api(Cluster.api()).deleteCollectionNamespacedConfigMap(namespace).execute();
        } catch (ApiException e) {
            throw new AssertionError("cannot delete the ConfigMaps of " + namespace + ": " + e.getResponseBody(), e);
        }
    }
}

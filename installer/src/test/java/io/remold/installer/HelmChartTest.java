package io.remold.installer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chart is the bundle: every option a value, the template equal to the bundle for the options' combinations. */
class HelmChartTest {
    private static final boolean UPDATE = Boolean.getBoolean("remold.updateGolden");
    private static final Path CHART = Path.of("..", "charts", "remold");
    /** Modes of the installer, not options of an installation. */
    private static final Set<String> MODES = Set.of("--help", "--helm-chart");
    private static final Pattern USAGE_OPTION = Pattern.compile("^ {2}(--[a-z-]+)", Pattern.MULTILINE);

    @Test
    void everyInstallerOptionIsAChartValue() {
        var flags = new TreeSet<String>();
        Matcher m = USAGE_OPTION.matcher(InstallOptions.USAGE);
        while (m.find()) {
            flags.add(m.group(1));
        }
        flags.removeAll(MODES);
        assertThat("--help's options without a chart value (add them to HelmChart.VALUES)",
                HelmChart.VALUES.stream().map(HelmChart.Value::flag).collect(Collectors.toCollection(TreeSet::new)),
                equalTo(flags));
        var components = Arrays.stream(InstallOptions.class.getRecordComponents()).map(RecordComponent::getName)
                .filter(name -> !name.equals("help")).collect(Collectors.toCollection(TreeSet::new));
        assertThat("InstallOptions' components without a chart value (add them to HelmChart.VALUES)",
                HelmChart.VALUES.stream().map(HelmChart.Value::component)
                        .collect(Collectors.toCollection(TreeSet::new)), equalTo(components));
    }

    /**
     * The chart's test of a value the installer refuses beside --webhook-url, and the flags that ask for it.
     * webhookIngressCidrs always has a value: it is given when it is not the installer's default.
     */
    static Stream<org.junit.jupiter.params.provider.Arguments> refusedWithWebhookUrl() {
        return Stream.of(
                org.junit.jupiter.params.provider.Arguments.of(".Values.certManager", List.of("--cert-manager")),
                org.junit.jupiter.params.provider.Arguments.of(".Values.clientCa",
                        List.of("--client-ca-file", "src/test/resources/test-ca.crt")),
                org.junit.jupiter.params.provider.Arguments.of(".Values.tenantScripts",
                        List.of("--tenant-scripts", "team-a")),
                org.junit.jupiter.params.provider.Arguments.of(".Values.serviceMonitor", List.of("--service-monitor")),
                org.junit.jupiter.params.provider.Arguments.of(
                        "(ne (toJson .Values.webhookIngressCidrs) `[\"0.0.0.0/0\",\"::/0\"]`)",
                        List.of("--webhook-ingress-cidr", "10.0.0.0/8")));
    }

    /** helm cannot run here: HelmIT renders the refusal; this checks the guard is in the chart, with the message. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("refusedWithWebhookUrl")
    void theChartFailsWhereTheInstallerRefuses(String given, List<String> flags) throws IOException {
        var args = new java.util.ArrayList<>(List.of("--webhook-url", "https://remold.example"));
        args.addAll(flags);
        String message = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
                () -> InstallOptions.parse(args)).getMessage();
        assertThat(Files.readString(CHART.resolve("templates/remold.yaml")), containsString(
                "{{- if (and .Values.webhookUrl " + given + ") }}\n{{- fail \"" + message + "\" }}\n"));
    }

    /** Every combination of up to four switches, and all compatible switches at once. */
    @Test
    void theTemplateIsTheBundleUnderEveryCombinationOfSwitches() {
        GuardedText template = HelmChart.template();
        int switches = (int) HelmChart.VALUES.stream().filter(v -> v.placeholder() instanceof HelmChart.Switch).count();
        var combinations = Stream.iterate(0, size -> size <= 4, size -> size + 1)
                .flatMap(size -> GuardedText.subsets(switches, size).stream()).collect(Collectors.toList());
        BitSet inCluster = new BitSet();
        inCluster.set(0, switches);
        combinations.add(allowedPart(inCluster, "webhookUrl"));
        combinations.add(allowedPart(inCluster, "certManager", "clientCa", "tenantScripts", "serviceMonitor"));
        int checked = 0;
        for (BitSet on : combinations) {
            if (HelmChart.allowed(on)) {
                assertThat("switches " + on, difference(template.text(on), HelmChart.render(on)), equalTo(""));
                checked++;
            }
        }
        assertThat(checked > 1000, is(true));
    }

    /** The first differing lines, or nothing. */
    private static String difference(String actual, String expected) {
        List<String> a = GuardedText.split(actual);
        List<String> e = GuardedText.split(expected);
        return GuardedText.lineDiff(a, e).stream().limit(3).map(h -> "at line " + h.baseStart() + ":\n- "
                + String.join("\n- ", a.subList(h.baseStart(), h.baseEnd())) + "\n+ "
                + String.join("\n+ ", e.subList(h.variantStart(), h.variantEnd()))).collect(Collectors.joining("\n"));
    }

    private static BitSet allowedPart(BitSet all, String... without) {
        BitSet on = (BitSet) all.clone();
        int i = 0;
        for (HelmChart.Value v : HelmChart.VALUES) {
            if (v.placeholder() instanceof HelmChart.Switch) {
                if (List.of(without).contains(v.component())) {
                    on.clear(i);
                }
                i++;
            }
        }
        assertThat(HelmChart.allowed(on), is(true));
        return on;
    }

    @Test
    void theRepositorysChartIsTheInstallersChart(@TempDir Path dir) throws IOException {
        assertThat(Main.run(new String[] {"--helm-chart", dir.toString()}, System.out, System.err), is(0));
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                Path committed = CHART.resolve(dir.relativize(file).toString());
                String text = Files.readString(file);
                if (UPDATE) {
                    Files.createDirectories(committed.getParent());
                    Files.writeString(committed, text);
                }
                assertThat(file + " keeps a placeholder", text.toLowerCase().contains("sentinel"), is(false));
                assertThat(committed + " differs from what the installer writes"
                        + " (rerun with -Dremold.updateGolden=true and review the diff)",
                        Files.exists(committed) ? Files.readString(committed) : "(missing)", equalTo(text));
            }
        }
    }

    /** docs/install.md's Helm values table: every value, with its installer option. */
    @Test
    void theDocumentedValuesAreTheChartsValues() throws IOException {
        var documented = new java.util.TreeMap<String, String>();
        Matcher row = Pattern.compile("^\\| `([A-Za-z]+)` \\| \\[`(--[a-z-]+)`]", Pattern.MULTILINE)
                .matcher(Files.readString(Path.of("..", "docs", "install.md")));
        while (row.find()) {
            documented.put(row.group(1), row.group(2));
        }
        var values = new java.util.TreeMap<String, String>();
        HelmChart.VALUES.forEach(v -> values.put(v.key(), v.flag()));
        assertThat(documented, equalTo(values));
    }

    @Test
    void theValuesDefaultToTheOptionsGivenWithTheChart(@TempDir Path dir) throws IOException {
        assertThat(Main.run(new String[] {"--helm-chart", dir.toString(), "--replicas", "3", "--kubemod-compat"},
                System.out, System.err), is(0));
        String values = Files.readString(dir.resolve("values.yaml"));
        assertThat(values, containsString("\nreplicas: 3\n"));
        assertThat(values, containsString("\nkubemodCompat: true\n"));
        assertThat(values, containsString("\n# --kubemod-compat  also install the api.kubemod.io CRD"));
    }
}

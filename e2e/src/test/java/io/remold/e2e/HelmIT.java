package io.remold.e2e;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The repository's chart with helm itself (built by e2e/helm.sh): it lints, and {@code helm template} with the values
 * the installer writes for a set of flags gives the objects of the bundle for the same flags (see {@link Helm} for
 * the two differences the chart makes on purpose).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HelmIT {
    private Helm helm;

    @BeforeAll
    void helm() {
        helm = new Helm(Cluster.REPO, Cluster.WORK);
    }

    @Test
    void theChartLints() {
        var lint = helm.helm("lint", helm.chart().toString()).run().orFail();
        assertThat(lint.toString(), lint.stdout().contains("0 chart(s) failed"), is(true));
    }

    static Stream<Arguments> flags() {
        String ca = Cluster.REPO.resolve("installer/src/test/resources/test-ca.crt").toString();
        return Stream.of(
                Arguments.of("default", new String[] {}),
                Arguments.of("compat", new String[] {"--kubemod-compat", "--gatekeeper-compat",
                        "--js-admissions-compat", "--kinitiras-compat"}),
                Arguments.of("js-admissions", new String[] {"--js-admissions-compat"}),
                Arguments.of("cert-manager", new String[] {"--cert-manager", "--replicas", "3"}),
                Arguments.of("autoscaled", new String[] {"--replicas", "3", "--max-replicas", "9", "--priority-class",
                        "system-cluster-critical"}),
                Arguments.of("placed", new String[] {"--ignore-namespaces", "team-a,monitoring", "--node-selector",
                        "kubernetes.io/os=linux,node-role.example/infra=", "--node-annotations", "--kubemod-compat",
                        "--tolerations", "dedicated=remold:NoSchedule,node-role.kubernetes.io/control-plane,spot="}),
                Arguments.of("everything", new String[] {"--namespace", "other-system", "--image", "reg.example/remold",
                        "--tag", "1.2.3", "--image-pull-policy", "Always", "--resources", "pods,*", "--operations",
                        "CREATE,UPDATE", "--mutate-failure-policy", "Fail", "--validate-failure-policy", "Ignore",
                        "--timeout-seconds", "10", "--allow-references", "configmaps,apps/deployments,secrets",
                        "--script-kinds", "pods,apps/deployments", "--allow-http-ref", "https://data.example/v1/",
                        "--kinitiras-compat", "--kinitiras-cross-namespace-overrides", "--kinitiras-webhook-label",
                        "--webhook-ingress-cidr", "10.0.0.0/8,fd00::/64", "--client-ca-file", ca,
                        "--tenant-scripts", "*", "--node-annotations", "--kubemod-compat"}),
                Arguments.of("out-of-cluster", new String[] {"--webhook-url", "https://remold.example:8443/",
                        "--ca-file", ca}),
                Arguments.of("out-of-cluster-public-ca", new String[] {"--webhook-url", "https://remold.example"}));
    }

    /** The chart refuses, with the installer's message, what the installer refuses beside --webhook-url. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedWithWebhookUrl")
    void helmTemplateFailsWhereTheInstallerRefuses(String value, String setting, String message) {
        var run = helm.helm("template", "remold", helm.chart().toString(), "--set",
                "webhookUrl=https://remold.example," + setting).run();
        assertThat(run.toString(), run.exitCode(), not(is(0)));
        assertThat(run.toString(), run.stderr(), containsString(message));
    }

    static Stream<Arguments> refusedWithWebhookUrl() {
        String inCluster = "configure the in-cluster server: with --webhook-url";
        return Stream.of(
                Arguments.of("certManager", "certManager=true", "--webhook-url and --cert-manager exclude each other"),
                Arguments.of("clientCa", "clientCa=-----BEGIN CERTIFICATE-----", inCluster),
                Arguments.of("tenantScripts", "tenantScripts={team-a}", inCluster),
                Arguments.of("webhookIngressCidrs", "webhookIngressCidrs={10.0.0.0/8}", inCluster),
                Arguments.of("serviceMonitor", "serviceMonitor=true", "--service-monitor scrapes the in-cluster server"));
    }

    /** values.schema.json: Helm refuses a value of the wrong type, out of the installer's rule, or unknown, naming it. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidValues")
    void helmTemplateFailsOnAnInvalidValueNamingIt(String setting, String named) {
        var run = helm.helm("template", "remold", helm.chart().toString(), "--set", setting).run();
        assertThat(run.toString(), run.exitCode(), not(is(0)));
        assertThat(run.toString(), run.stderr(), containsString("values don't meet the specifications of the schema"));
        assertThat(run.toString(), run.stderr(), containsString(named));
    }

    static Stream<Arguments> invalidValues() {
        return Stream.of(
                Arguments.of("replicas=two", "at '/replicas': got string, want integer"),
                Arguments.of("replicaz=3", "additional properties 'replicaz' not allowed"),
                Arguments.of("timeoutSeconds=31", "at '/timeoutSeconds'"),
                Arguments.of("logLevel=verbose", "at '/logLevel'"),
                Arguments.of("webhookIngressCidrs={10.0.0.0/33}", "at '/webhookIngressCidrs/0'"),
                Arguments.of("resources=null", "missing property 'resources'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("flags")
    void helmTemplateGivesTheBundlesObjects(String name, String[] flags) {
        String rendered = helm.template(helm.values(name, flags));
        assertThat(Helm.objects(rendered, false), equalTo(Helm.objects(helm.bundle(flags), false)));
        boolean inCluster = !List.of(flags).contains("--webhook-url");
        assertThat("the pre-delete hook's objects", Helm.objects(rendered, true), hasSize(inCluster ? 4 : 0));
    }
}

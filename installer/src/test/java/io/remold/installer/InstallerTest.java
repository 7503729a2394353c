package io.remold.installer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasEntry;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1LabelSelectorRequirement;
import io.kubernetes.client.openapi.models.V1MutatingWebhookConfiguration;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import io.kubernetes.client.util.Yaml;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.constructor.SafeConstructor;

class InstallerTest {
    private static final Path GOLDEN = Path.of("src/test/resources/golden");
    private static final boolean UPDATE = Boolean.getBoolean("remold.updateGolden");

    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static String caFile() {
        try {
            return Path.of(InstallerTest.class.getResource("/test-ca.crt").toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Arguments> optionSets() {
        return Stream.of(
                Arguments.of("default", new String[] {"--tag", "1.0.0"}),
                Arguments.of("kubemod-compat", new String[] {"--tag", "1.0.0", "--kubemod-compat"}),
                Arguments.of("gatekeeper-compat", new String[] {"--tag", "1.0.0", "--gatekeeper-compat"}),
                Arguments.of("js-admissions-compat", new String[] {"--tag", "1.0.0", "--js-admissions-compat"}),
                Arguments.of("cert-manager", new String[] {"--tag", "1.0.0", "--cert-manager"}),
                Arguments.of("webhook-url", new String[] {"--webhook-url", "https://127.0.0.1:9443/",
                        "--ca-file", caFile(), "--kubemod-compat"}),
                Arguments.of("custom", new String[] {"--namespace", "admission", "--image", "registry.example/remold",
                        "--tag=2.1", "--image-pull-policy", "Never", "--replicas", "3", "--resources", "pods,deployments,configmaps",
                        "--operations", "CREATE,UPDATE", "--mutate-failure-policy", "Fail",
                        "--validate-failure-policy=Ignore", "--timeout-seconds", "10",
                        "--allow-references", "configmaps,secrets,apps/deployments"}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("optionSets")
    void bundleMatchesGoldenFile(String name, String[] args) throws IOException {
        Result result = run(args);
        assertThat(result.err(), result.code(), is(0));
        Path golden = GOLDEN.resolve(name + ".yaml");
        if (UPDATE) {
            Files.writeString(golden, result.out());
        }
        assertThat("bundle for " + Arrays.toString(args) + " differs from " + golden
                + " (rerun with -Dremold.updateGolden=true and review the diff)", result.out(), equalTo(Files.readString(golden)));
        assertThat("same options, same bytes", run(args).out(), equalTo(result.out()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("optionSets")
    void everyDocumentLoadsIntoTheClientModelsInApplyOrder(String name, String[] args) throws IOException {
        String bundle = run(args).out();
        var documents = new ArrayList<Map<String, Object>>();
        for (Object document : new org.yaml.snakeyaml.Yaml(new SafeConstructor(new LoaderOptions())).loadAll(bundle)) {
            @SuppressWarnings("unchecked")
            var map = (Map<String, Object>) document;
            documents.add(map);
        }
        assertThat(documents.stream().map(d -> d.get("kind")).toList(), everyItem(notNullValue()));
        assertThat(documents.stream().map(d -> d.get("apiVersion")).toList(), everyItem(notNullValue()));
        List<Object> kinds = documents.stream().map(d -> d.get("kind")).toList();
        assertThat(kinds.get(0), is("Namespace"));
        assertThat(kinds.get(1), is("CustomResourceDefinition"));
        assertThat(kinds.get(kinds.size() - 2), is("MutatingWebhookConfiguration"));
        assertThat(kinds.get(kinds.size() - 1), is("ValidatingWebhookConfiguration"));

        // cert-manager's kinds have no model in the client; everything else must load into one
        String modelled = String.join("\n", documents.stream()
                .filter(d -> !String.valueOf(d.get("apiVersion")).startsWith("cert-manager.io/"))
                .map(d -> new org.yaml.snakeyaml.Yaml().dump(d)).map(d -> "---\n" + d).toList());
        List<Object> objects = Yaml.loadAll(modelled);
        for (Object object : objects) {
            assertThat(object.getClass().getName(), startsWith("io.kubernetes.client.openapi.models."));
            var kubernetesObject = (KubernetesObject) object;
            assertThat(kubernetesObject.getKind(), notNullValue());
            assertThat(kubernetesObject.getApiVersion(), notNullValue());
        }
        String namespace = documents.get(0).get("metadata") instanceof Map<?, ?> m ? (String) m.get("name") : null;
        for (Object object : objects) {
            var meta = ((KubernetesObject) object).getMetadata();
            if (meta.getNamespace() != null) {
                assertThat(meta.getName(), meta.getNamespace(), is(namespace));
            }
        }
    }

    @Test
    void webhookUrlModePointsAtTheOutsideServerWithTheGivenCa() throws IOException {
        String bundle = run("--webhook-url", "https://127.0.0.1:9443", "--ca-file", caFile()).out();
        List<Object> objects = Yaml.loadAll(bundle);
        byte[] ca = Files.readAllBytes(Path.of(caFile()));
        var mutating = only(objects, V1MutatingWebhookConfiguration.class);
        var validating = only(objects, V1ValidatingWebhookConfiguration.class);
        assertThat(mutating.getWebhooks().stream().map(w -> w.getClientConfig().getUrl()).toList(),
                contains("https://127.0.0.1:9443/mutate", "https://127.0.0.1:9443/mutate"));
        assertThat(validating.getWebhooks().stream().map(w -> w.getClientConfig().getUrl()).toList(),
                contains("https://127.0.0.1:9443/validate", "https://127.0.0.1:9443/validate-modrule",
                        "https://127.0.0.1:9443/validate-modrule"));
        assertThat(Arrays.equals(mutating.getWebhooks().get(0).getClientConfig().getCaBundle(), ca), is(true));
        List<String> kinds = objects.stream().map(o -> ((KubernetesObject) o).getKind()).toList();
        assertThat(kinds, not(hasItem("Deployment")));
        assertThat(kinds, not(hasItem("Service")));
        assertThat(kinds, not(hasItem("Job")));
        assertThat(kinds, not(hasItem("PodDisruptionBudget")));
    }

    @Test
    void kubemodCompatCoversBothApiGroups() throws IOException {
        List<Object> objects = Yaml.loadAll(run("--kubemod-compat").out());
        var validating = only(objects, V1ValidatingWebhookConfiguration.class);
        assertThat(validating.getWebhooks().get(1).getRules().get(0).getApiGroups(), contains("remold.io", "api.kubemod.io"));
        var serverRole = objects.stream().filter(V1ClusterRole.class::isInstance).map(V1ClusterRole.class::cast)
                .filter(r -> r.getMetadata().getName().equals("remold-server")).findFirst().orElseThrow();
        assertThat(serverRole.getRules().get(0).getApiGroups(), contains("remold.io", "api.kubemod.io"));
        // namespaces exempted from KubeMod stay exempted
        var mutating = only(objects, V1MutatingWebhookConfiguration.class);
        for (var webhook : mutating.getWebhooks()) {
            assertThat(webhook.getName(), webhook.getNamespaceSelector().getMatchExpressions().stream()
                    .map(V1LabelSelectorRequirement::getKey).toList(), hasItem("admission.kubemod.io/ignore"));
        }
        assertThat(run().out(), not(containsString("admission.kubemod.io/ignore")));
        assertThat(run("--kubemod-compat").out(), containsString("name: modrules.api.kubemod.io"));
        assertThat(run().out(), not(containsString("name: modrules.api.kubemod.io")));
    }

    @Test
    void referencesReadNothingUnlessAllowedAndThenExactlyTheAllowedResources() throws IOException {
        var byDefault = serverRole(Yaml.loadAll(run().out())).getRules().stream()
                .flatMap(r -> r.getResources().stream()).toList();
        assertThat(byDefault, not(hasItem("configmaps")));
        assertThat(byDefault, not(hasItem("secrets")));
        assertThat(run().out(), not(containsString("--allow-references")));

        var allowed = serverRole(Yaml.loadAll(run("--allow-references", "configmaps,apps/deployments").out()))
                .getRules().stream().filter(r -> r.getVerbs().equals(List.of("get", "list", "watch")))
                .map(r -> r.getApiGroups() + " " + r.getResources()).toList();
        assertThat(allowed, hasItem("[] [configmaps]"));
        assertThat(allowed, hasItem("[apps] [deployments]"));
        assertThat(allowed.toString(), not(containsString("secrets")));
        assertThat(run("--allow-references", "configmaps").out(), containsString("--allow-references=configmaps"));
        assertThat(run("--allow-references", "Config Maps").code(), is(2));
    }

    private static V1ClusterRole serverRole(List<Object> objects) {
        return objects.stream().filter(V1ClusterRole.class::isInstance).map(V1ClusterRole.class::cast)
                .filter(r -> r.getMetadata().getName().equals("remold-server")).findFirst().orElseThrow();
    }

    @Test
    void gatekeeperCompatServesValidatesAndGrantsTheFourMutatorKinds() throws IOException {
        String bundle = run("--gatekeeper-compat").out();
        List<Object> objects = Yaml.loadAll(bundle);
        var crds = objects.stream().filter(V1CustomResourceDefinition.class::isInstance)
                .map(V1CustomResourceDefinition.class::cast).filter(c -> c.getSpec().getGroup().equals("mutations.gatekeeper.sh"))
                .toList();
        assertThat(crds.stream().map(c -> c.getSpec().getNames().getKind()).toList(),
                contains("Assign", "AssignImage", "AssignMetadata", "ModifySet"));
        for (var crd : crds) {
            assertThat(crd.getSpec().getScope(), is("Cluster"));
            // As Gatekeeper v3.23 serves them: AssignImage is still v1alpha1 only.
            assertThat(crd.getSpec().getVersions().stream().map(v -> v.getName() + "=" + v.getStorage()).toList(),
                    crd.getSpec().getNames().getKind().equals("AssignImage") ? contains("v1alpha1=true")
                            : contains("v1=true", "v1beta1=false", "v1alpha1=false"));
        }
        var validating = only(objects, V1ValidatingWebhookConfiguration.class);
        var mutatorWebhook = validating.getWebhooks().get(2);
        assertThat(mutatorWebhook.getClientConfig().getService().getPath(), is("/validate-modrule"));
        assertThat(mutatorWebhook.getRules().get(0).getResources(),
                contains("assign", "assignimage", "assignmetadata", "modifyset"));
        var serverRole = objects.stream().filter(V1ClusterRole.class::isInstance).map(V1ClusterRole.class::cast)
                .filter(r -> r.getMetadata().getName().equals("remold-server")).findFirst().orElseThrow();
        assertThat(serverRole.getRules().stream().filter(r -> r.getApiGroups().contains("mutations.gatekeeper.sh"))
                .map(r -> r.getResources() + " " + r.getVerbs()).toList(), contains(
                "[assign, assignimage, assignmetadata, modifyset] [get, list, watch]",
                "[assign/status, assignimage/status, assignmetadata/status, modifyset/status] [patch, update]"));
        assertThat(run().out(), not(containsString("mutations.gatekeeper.sh")));
    }

    @Test
    void providersAreServedValidatedAndOnlyReadWithTheirStatus() throws IOException {
        List<Object> objects = Yaml.loadAll(run().out());
        var crd = objects.stream().filter(V1CustomResourceDefinition.class::isInstance)
                .map(V1CustomResourceDefinition.class::cast).filter(c -> c.getMetadata().getName()
                        .equals("providers.remold.io")).findFirst().orElseThrow();
        assertThat(crd.getSpec().getScope(), is("Cluster"));
        var webhook = only(objects, V1ValidatingWebhookConfiguration.class).getWebhooks().getLast();
        assertThat(webhook.getClientConfig().getService().getPath(), is("/validate-modrule"));
        assertThat(webhook.getRules().get(0).getResources(), contains("providers"));
        assertThat(webhook.getRules().get(0).getScope(), is("Cluster"));
        var serverRole = objects.stream().filter(V1ClusterRole.class::isInstance).map(V1ClusterRole.class::cast)
                .filter(r -> r.getMetadata().getName().equals("remold-server")).findFirst().orElseThrow();
        assertThat(serverRole.getRules().stream().filter(r -> r.getResources().stream().anyMatch(
                s -> s.startsWith("providers"))).map(r -> r.getApiGroups() + " " + r.getResources() + " "
                + r.getVerbs()).toList(), contains("[remold.io] [providers] [get, list, watch]",
                "[remold.io] [providers/status] [patch, update]"));
    }

    @Test
    void jsAdmissionsCompatServesValidatesAndGrantsTheScriptKindsOnly() throws IOException {
        List<Object> objects = Yaml.loadAll(run("--js-admissions-compat").out());
        var crds = objects.stream().filter(V1CustomResourceDefinition.class::isInstance)
                .map(V1CustomResourceDefinition.class::cast).filter(c -> c.getSpec().getGroup().equals("momiji.com"))
                .toList();
        assertThat(crds.stream().map(c -> c.getSpec().getNames().getKind() + " " + c.getSpec().getScope() + " "
                + c.getSpec().getNames().getPlural()).toList(), contains("JsAdmission Namespaced jsadmissions",
                "ClusterJsAdmission Cluster clusterjsadmissions"));
        var validating = only(objects, V1ValidatingWebhookConfiguration.class);
        var scriptWebhook = validating.getWebhooks().get(2);
        assertThat(scriptWebhook.getClientConfig().getService().getPath(), is("/validate-modrule"));
        assertThat(scriptWebhook.getRules().get(0).getResources(), contains("clusterjsadmissions", "jsadmissions"));
        assertThat(serverRules(objects, "momiji.com"), contains(
                "[clusterjsadmissions, jsadmissions] [get, list, watch]",
                "[clusterjsadmissions/status, jsadmissions/status] [patch, update]"));
        // the seed's default: events of pods; other kinds only when asked for
        assertThat(serverRules(objects, ""), hasItem("[pods] [get, list, watch]"));
        List<Object> custom = Yaml.loadAll(run("--js-admissions-compat", "--script-kinds", "pods,apps/deployments").out());
        assertThat(serverRules(custom, "apps"), contains("[deployments] [get, list, watch]"));
        assertThat(serverRules(Yaml.loadAll(run().out()), ""), not(hasItem("[pods] [get, list, watch]")));
        assertThat(run().out(), not(containsString("momiji.com")));
    }

    private static List<String> serverRules(List<Object> objects, String group) {
        var serverRole = objects.stream().filter(V1ClusterRole.class::isInstance).map(V1ClusterRole.class::cast)
                .filter(r -> r.getMetadata().getName().equals("remold-server")).findFirst().orElseThrow();
        return serverRole.getRules().stream().filter(r -> r.getApiGroups().contains(group))
                .map(r -> r.getResources() + " " + r.getVerbs()).toList();
    }

    @Test
    void certgenJobIsNamedAfterItsSpecSoThatAnUpgradeAppliesANewJob() throws IOException {
        String first = jobName(run("--tag", "1.0.0").out());
        assertThat(first, matchesPattern("remold-certgen-[0-9a-f]{10}"));
        assertThat(jobName(run("--tag", "1.0.0").out()), is(first));
        assertThat(jobName(run("--tag", "1.1.0").out()), not(is(first)));
        assertThat("the CronJob's template may change in place", run("--tag", "1.1.0").out(),
                containsString("kind: CronJob\nmetadata:\n  labels:\n    admission.remold.io/ignore: 'true'\n"
                        + "    app.kubernetes.io/name: remold\n    app.kubernetes.io/part-of: remold\n"
                        + "  name: remold-certgen\n"));
    }

    private static String jobName(String bundle) throws IOException {
        List<Object> objects = Yaml.loadAll(bundle);
        return only(objects, V1Job.class).getMetadata().getName();
    }

    /**
     * Uninstalling deletes Remold's cluster-scoped objects while its server goes away: the webhooks must not
     * intercept them, or a Fail policy would refuse their deletion.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("optionSets")
    void theTargetWebhooksSkipEveryObjectOfTheBundle(String name, String[] args) throws IOException {
        String bundle = run(args).out();
        for (Object document : new org.yaml.snakeyaml.Yaml(new SafeConstructor(new LoaderOptions())).loadAll(bundle)) {
            var object = (Map<?, ?>) document;
            var meta = (Map<?, ?>) object.get("metadata");
            if (!"CustomResourceDefinition".equals(object.get("kind"))) {
                assertThat(object.get("kind") + " " + meta.get("name"), (Map<?, ?>) meta.get("labels"),
                        hasEntry("admission.remold.io/ignore", "true"));
            }
        }
        List<Object> objects = Yaml.loadAll(bundle.replaceAll("(?s)---\napiVersion: cert-manager.io.*?(?=---)", ""));
        var ignored = new V1LabelSelectorRequirement().key("admission.remold.io/ignore").operator("NotIn")
                .values(List.of("true"));
        assertThat(only(objects, V1MutatingWebhookConfiguration.class).getWebhooks().get(0).getObjectSelector()
                .getMatchExpressions(), contains(ignored));
        assertThat(only(objects, V1ValidatingWebhookConfiguration.class).getWebhooks().get(0).getObjectSelector()
                .getMatchExpressions(), contains(ignored));
    }

    /** A flag this JVM does not know would stop every server pod at start. */
    @Test
    void theJvmFlagsOfTheContainersStartAJvm() throws IOException, InterruptedException {
        assumeTrue(Runtime.version().feature() >= 25, "the image's runtime is JDK 25 (compact object headers)");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (String flags : List.of(Bundle.SERVER_JVM_OPTIONS, Bundle.CERTGEN_JVM_OPTIONS)) {
            var command = new ArrayList<>(List.of(java));
            command.addAll(List.of(flags.split(" ")));
            command.add("-version");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(flags + ": " + output, process.waitFor(), is(0));
        }
    }

    /** The bundle runs the jars where the repository's Dockerfile puts them, as the user it creates. */
    @Test
    void theBundleAndTheDockerfileAgreeOnPathsAndUser() throws IOException {
        String dockerfile = Files.readString(Path.of("../Dockerfile")).replaceAll("\\\\\n\\s*", "");
        // the entrypoint runs with the bundle's flags, and the AOT cache they name is trained with the same flags
        var entrypoint = new ArrayList<>(List.of("java"));
        entrypoint.addAll(List.of(Bundle.SERVER_JVM_OPTIONS.split(" ")));
        entrypoint.addAll(List.of("-jar", Bundle.SERVER_JAR));
        assertThat(dockerfile, containsString("ENTRYPOINT ["
                + entrypoint.stream().map(arg -> '"' + arg + '"').collect(Collectors.joining(", ")) + "]"));
        assertThat(Bundle.SERVER_JVM_OPTIONS, containsString("-XX:AOTCache=/app/"));
        assertThat(dockerfile, containsString("java " + Bundle.SERVER_JVM_OPTIONS.replace("-XX:AOTCache=",
                "-XX:AOTCacheOutput=") + " -jar " + Bundle.SERVER_JAR + " serve "));
        assertThat(dockerfile, containsString("CMD [\"serve\"]"));
        assertThat(dockerfile, containsString("USER " + Bundle.IMAGE_UID + ":" + Bundle.IMAGE_UID));
        // the build stage copies the jars into /out/, which becomes /app/
        assertThat(dockerfile, containsString("COPY --from=build --chown=0:0 /out/ /app/"));
        for (String jar : List.of(Bundle.SERVER_JAR, Bundle.CERTGEN_JAR)) {
            assertThat(Path.of(jar).getParent(), is(Path.of("/app")));
            assertThat(dockerfile, matchesPattern("(?s).*cp [^\\n]*/target/" + Path.of(jar).getFileName() + " .*/out/.*"));
        }
    }

    @Test
    void helpPrintsEveryOption() {
        Result result = run("--help");
        assertThat(result.code(), is(0));
        for (String option : List.of("--namespace", "--image", "--tag", "--image-pull-policy", "--replicas", "--resources", "--operations",
                "--mutate-failure-policy", "--validate-failure-policy", "--timeout-seconds", "--webhook-url",
                "--ca-file", "--kubemod-compat", "--cert-manager")) {
            assertThat(result.out(), containsString(option));
        }
    }

    static Stream<Arguments> invalidOptions() {
        return Stream.of(
                Arguments.of(new String[] {"--bogus"}, "unknown option --bogus"),
                Arguments.of(new String[] {"--namespace"}, "option --namespace needs a value"),
                Arguments.of(new String[] {"--namespace", "Remold_System"}, "option --namespace: 'Remold_System'"),
                Arguments.of(new String[] {"--replicas", "0"}, "option --replicas: '0' is not a whole number from 1"),
                Arguments.of(new String[] {"--replicas=two"}, "option --replicas: 'two'"),
                Arguments.of(new String[] {"--timeout-seconds", "31"}, "option --timeout-seconds: '31'"),
                Arguments.of(new String[] {"--operations", "CREATE,PATCH"}, "option --operations: item 2 'PATCH'"),
                Arguments.of(new String[] {"--resources", "pods,"}, "option --resources: item 2 ''"),
                Arguments.of(new String[] {"--mutate-failure-policy", "fail"}, "'fail' is not one of Ignore, Fail"),
                Arguments.of(new String[] {"--image-pull-policy", "never"},
                        "'never' is not one of Always, IfNotPresent, Never"),
                Arguments.of(new String[] {"--tag", "a b"}, "option --tag: 'a b' is not an image tag"),
                Arguments.of(new String[] {"--webhook-url", "http://localhost:8443"}, "must be an https URL"),
                Arguments.of(new String[] {"--ca-file", "ca.crt"}, "--ca-file is only used with --webhook-url"),
                Arguments.of(new String[] {"--webhook-url", "https://h", "--ca-file", "/nonexistent/ca.crt"},
                        "option --ca-file: cannot read /nonexistent/ca.crt"),
                Arguments.of(new String[] {"--webhook-url", "https://h", "--cert-manager"}, "exclude each other"));
    }

    @ParameterizedTest
    @MethodSource("invalidOptions")
    void invalidOptionsExitWithCode2AndNameTheOption(String[] args, String message) {
        Result result = run(args);
        assertThat(result.code(), is(2));
        assertThat(result.out(), is(""));
        assertThat(result.err(), containsString(message));
    }

    private static <T> T only(List<Object> objects, Class<T> type) {
        List<T> matching = objects.stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(type.getSimpleName(), matching.size(), is(1));
        return matching.get(0);
    }
}

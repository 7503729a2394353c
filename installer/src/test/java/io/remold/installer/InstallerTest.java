package io.remold.installer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasEntry;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1CustomResourceDefinition;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1LabelSelectorRequirement;
import io.kubernetes.client.openapi.models.V1MatchCondition;
import io.kubernetes.client.openapi.models.V1MutatingWebhook;
import io.kubernetes.client.openapi.models.V1MutatingWebhookConfiguration;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1Probe;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
                Arguments.of("kinitiras-compat", new String[] {"--tag", "1.0.0", "--kinitiras-compat"}),
                Arguments.of("cert-manager", new String[] {"--tag", "1.0.0", "--cert-manager"}),
                Arguments.of("reports", new String[] {"--tag", "1.0.0", "--reports"}),
                Arguments.of("observability", new String[] {"--tag", "1.0.0", "--service-monitor", "--prometheus-rule",
                        "--dashboard"}),
                Arguments.of("webhook-url", new String[] {"--webhook-url", "https://127.0.0.1:9443/",
                        "--ca-file", caFile(), "--kubemod-compat"}),
                Arguments.of("custom", new String[] {"--namespace", "admission", "--image", "registry.example/remold",
                        "--tag=2.1", "--image-pull-policy", "Never", "--replicas", "3", "--resources", "pods,deployments,configmaps",
                        "--operations", "CREATE,UPDATE", "--mutate-failure-policy", "Fail",
                        "--validate-failure-policy=Ignore", "--timeout-seconds", "10",
                        "--allow-references", "configmaps,secrets,apps/deployments"}),
                Arguments.of("hardened", new String[] {"--tag", "1.0.0", "--webhook-ingress-cidr", "172.18.0.0/16,fd00::/64",
                        "--client-ca-file", caFile(), "--tenant-scripts", "team-a,team-b", "--node-annotations",
                        "--allow-references", "configmaps,secrets"}));
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

        // cert-manager's and Prometheus Operator's kinds have no model in the client; everything else must load into one
        String modelled = String.join("\n", documents.stream()
                .filter(d -> !String.valueOf(d.get("apiVersion")).startsWith("cert-manager.io/")
                        && !String.valueOf(d.get("apiVersion")).startsWith("monitoring.coreos.com/"))
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
                contains("https://127.0.0.1:9443/mutate"));
        assertThat(validating.getWebhooks().stream().map(w -> w.getClientConfig().getUrl()).toList(),
                contains("https://127.0.0.1:9443/validate", "https://127.0.0.1:9443/validate-modrule",
                        "https://127.0.0.1:9443/validate-modrule"));
        assertThat(Arrays.equals(mutating.getWebhooks().get(0).getClientConfig().getCaBundle(), ca), is(true));
        List<String> kinds = objects.stream().map(o -> ((KubernetesObject) o).getKind()).toList();
        assertThat(kinds, not(hasItem("Deployment")));
        assertThat(kinds, not(hasItem("Service")));
        assertThat(kinds, not(hasItem("Job")));
        assertThat(kinds, not(hasItem("PodDisruptionBudget")));
        assertThat(kinds, not(hasItem("NetworkPolicy")));
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

    @Test
    void existingObjectsArePatchedOnlyWhereTheOperatorSaysAndNeverPods() throws IOException {
        assertThat("no patch beyond the server's own", serverRole(Yaml.loadAll(run().out())).getRules().stream()
                .filter(r -> r.getVerbs().contains("patch")).map(r -> r.getApiGroups() + " " + r.getResources())
                .toList().toString(), not(containsString("deployments")));

        var granted = serverRole(Yaml.loadAll(run("--existing-apply-resources", "apps/deployments,services").out()))
                .getRules().stream().filter(r -> r.getVerbs().equals(List.of("get", "list", "patch")))
                .map(r -> r.getApiGroups() + " " + r.getResources()).toList();
        assertThat(granted, hasItem("[apps] [deployments]"));
        assertThat(granted, hasItem("[] [services]"));
        var pods = run("--existing-apply-resources", "apps/deployments,pods");
        assertThat(pods.code(), is(2));
        assertThat(pods.err(), containsString("item 2 'pods' is not valid"));
    }

    @Test
    void httpReferencePrefixesArePassedToTheServerAndRefusedHereAsTheServerRefusesThem() throws IOException {
        assertThat(run().out(), not(containsString("--allow-http-ref")));
        assertThat(run("--allow-http-ref", "http://rates.finance.svc:8080/api, https://config.team.svc").out(),
                containsString("- --allow-http-ref=http://rates.finance.svc:8080/api,https://config.team.svc"));
        assertThat(run("--allow-http-ref", "none").out(), not(containsString("--allow-http-ref")));
        var refused = run("--allow-http-ref", "http://user@rates.finance.svc/");
        assertThat(refused.code(), is(2));
        assertThat(refused.err(), containsString("--allow-http-ref http://user@rates.finance.svc/: a URL with user"
                + " info (before @) is not allowed"));
    }

    @Test
    void theKinitirasSettingsArePassedToTheServerOnlyWhenGiven() throws IOException {
        String bundle = run().out();
        assertThat(bundle, not(containsString("--kinitiras-cross-namespace-overrides")));
        assertThat(bundle, not(containsString("--kinitiras-webhook-label")));
        String both = run("--kinitiras-cross-namespace-overrides", "--kinitiras-webhook-label").out();
        assertThat(both, containsString("- --kinitiras-cross-namespace-overrides\n"));
        assertThat(both, containsString("- --kinitiras-webhook-label\n"));
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

    @Test
    void kinitirasCompatServesValidatesRendersGrantsAndMakesRoomForTheCueWorkers() throws IOException {
        List<Object> objects = Yaml.loadAll(run("--kinitiras-compat").out());
        var crds = objects.stream().filter(V1CustomResourceDefinition.class::isInstance)
                .map(V1CustomResourceDefinition.class::cast)
                .filter(c -> c.getSpec().getGroup().equals("policy.kcloudlabs.io")).toList();
        assertThat(crds.stream().map(c -> c.getSpec().getNames().getKind() + " " + c.getSpec().getScope() + " "
                + c.getSpec().getVersions().get(0).getName()).toList(), contains(
                "ClusterOverridePolicy Cluster v1alpha1", "ClusterValidatePolicy Cluster v1alpha1",
                "OverridePolicy Namespaced v1alpha1"));
        var validating = only(objects, V1ValidatingWebhookConfiguration.class);
        var policies = validating.getWebhooks().stream().filter(w -> w.getName().equals("kinitiras.remold.io"))
                .findFirst().orElseThrow();
        assertThat(policies.getClientConfig().getService().getPath(), is("/validate-modrule"));
        assertThat(policies.getFailurePolicy(), is("Fail"));
        assertThat(policies.getRules().get(0).getApiGroups(), contains("policy.kcloudlabs.io"));
        assertThat(policies.getRules().get(0).getOperations(), contains("CREATE", "UPDATE"));
        assertThat(policies.getRules().get(0).getResources(), contains("clusteroverridepolicies",
                "clustervalidatepolicies", "overridepolicies"));
        var rendering = only(objects, V1MutatingWebhookConfiguration.class).getWebhooks().stream()
                .filter(w -> w.getName().equals("renderedcue.remold.io")).findFirst().orElseThrow();
        assertThat(rendering.getClientConfig().getService().getPath(), is("/mutate-rule"));
        assertThat(rendering.getFailurePolicy(), is("Fail"));
        assertThat(rendering.getReinvocationPolicy(), is("IfNeeded"));
        assertThat(rendering.getRules(), is(policies.getRules()));
        assertThat(serverRules(objects, "policy.kcloudlabs.io"), contains(
                "[clusteroverridepolicies, clustervalidatepolicies, overridepolicies] [get, list, watch]",
                "[clusteroverridepolicies/status, clustervalidatepolicies/status, overridepolicies/status] [patch, update]"));
        V1Container server = only(objects, V1Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(server.getArgs(), hasItem("--rule-crds=remold.io,policy.kcloudlabs.io"));
        assertThat(server.getResources().getLimits().get("memory").toSuffixedString(), is("768Mi"));
        assertThat(server.getResources().getRequests().get("memory").toSuffixedString(), is("768Mi"));

        String plain = run().out();
        assertThat(plain, not(containsString("kcloudlabs")));
        assertThat(plain, not(containsString("/mutate-rule")));
        V1Container plainServer = only(Yaml.loadAll(plain), V1Deployment.class).getSpec().getTemplate().getSpec()
                .getContainers().get(0);
        assertThat(plainServer.getResources().getLimits().get("memory").toSuffixedString(), is(Bundle.SERVER_MEMORY));
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
                containsString("kind: CronJob\nmetadata:\n  labels:\n"
                        + "    app.kubernetes.io/name: remold\n    app.kubernetes.io/part-of: remold\n"
                        + "  name: remold-certgen\n"));
    }

    private static String jobName(String bundle) throws IOException {
        List<Object> objects = Yaml.loadAll(bundle);
        return only(objects, V1Job.class).getMetadata().getName();
    }

    /**
     * F2: no object label exempts anything (its author could set it). The system namespace is exempted by its own
     * label (namespace selectors; only administrators label Namespaces), and uninstalling deletes Remold's
     * cluster-scoped objects while its server goes away: a match condition (administrators' too) skips them by name,
     * or a Fail policy would refuse their deletion.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("optionSets")
    void noObjectLabelExemptsAndTheBundlesOwnObjectsAreSkippedByNamespaceOrName(String name, String[] args)
            throws IOException {
        String bundle = run(args).out();
        var clusterScoped = new ArrayList<String>();
        String systemNamespace = null;
        for (Object document : new org.yaml.snakeyaml.Yaml(new SafeConstructor(new LoaderOptions())).loadAll(bundle)) {
            var object = (Map<?, ?>) document;
            var meta = (Map<?, ?>) object.get("metadata");
            String kind = (String) object.get("kind");
            if (kind.equals("Namespace")) {
                systemNamespace = (String) meta.get("name");
                assertThat((Map<?, ?>) meta.get("labels"), hasEntry("admission.remold.io/ignore", "true"));
            } else if (meta.get("namespace") != null) {
                assertThat(kind + " " + meta.get("name"), meta.get("namespace"), is(systemNamespace));
            } else if (!kind.endsWith("WebhookConfiguration")) { // the API server never sends those to webhooks
                String resource = switch (kind) {
                    case "ClusterRole" -> "clusterroles";
                    case "ClusterRoleBinding" -> "clusterrolebindings";
                    case "CustomResourceDefinition" -> "customresourcedefinitions";
                    default -> throw new AssertionError("a cluster-scoped " + kind + " the webhooks may see");
                };
                clusterScoped.add(resource + " " + meta.get("name"));
            }
        }
        // the kinds without a client-java model (cert-manager's, Prometheus Operator's) left out
        List<Object> objects = Yaml.loadAll(bundle.replaceAll(
                "(?s)---\napiVersion: (cert-manager\\.io|monitoring\\.coreos\\.com)/.*?(?=---)", ""));
        var targets = new ArrayList<List<V1MatchCondition>>();
        for (var webhook : only(objects, V1MutatingWebhookConfiguration.class).getWebhooks()) {
            assertThat(webhook.getName(), webhook.getObjectSelector(), is(nullValue()));
            if (webhook.getName().equals("mutate.remold.io")) {
                targets.add(webhook.getMatchConditions());
            }
        }
        for (var webhook : only(objects, V1ValidatingWebhookConfiguration.class).getWebhooks()) {
            assertThat(webhook.getName(), webhook.getObjectSelector(), is(nullValue()));
            if (webhook.getName().equals("validate.remold.io")) {
                targets.add(webhook.getMatchConditions());
            }
        }
        assertThat(bundle, not(containsString("objectSelector")));
        assertThat(targets.size(), is(2));
        // and the Helm chart's uninstall hook's, which must be creatable while the server is down
        clusterScoped.addAll(List.of("clusterroles remold-uninstall", "clusterrolebindings remold-uninstall"));
        for (List<V1MatchCondition> conditions : targets) {
            assertThat(conditions.size(), is(1));
            assertThat(skippedByName(conditions.get(0).getExpression()), containsInAnyOrder(clusterScoped.toArray()));
        }
    }

    /** {@code resource name} of each object the webhook's condition {@code !(... || ...)} skips. */
    private static List<String> skippedByName(String expression) {
        assertThat(expression, startsWith("!("));
        var skipped = new ArrayList<String>();
        Matcher alternative = Pattern.compile("\\(request\\.resource\\.group == '[a-z0-9.]+' && request\\.resource\\.resource"
                + " == '([a-z]+)' && request\\.name in \\[([^\\]]*)]\\)").matcher(expression);
        while (alternative.find()) {
            for (String quoted : alternative.group(2).split(", ")) {
                skipped.add(alternative.group(1) + " " + quoted.substring(1, quoted.length() - 1));
            }
        }
        return skipped;
    }

    /** F10: the subresource that adds containers to a running Pod is judged by the webhooks like the Pod. */
    @Test
    void theWebhooksInterceptThePodSubresourcesThatChangeWhatRulesInspect() throws IOException {
        List<Object> objects = Yaml.loadAll(run().out());
        assertThat(only(objects, V1MutatingWebhookConfiguration.class).getWebhooks().get(0).getRules().get(0)
                .getResources(), hasItems("pods", "pods/ephemeralcontainers", "pods/resize"));
        assertThat(only(objects, V1ValidatingWebhookConfiguration.class).getWebhooks().get(0).getRules().get(0)
                .getResources(), hasItems("pods", "pods/ephemeralcontainers", "pods/resize"));
        assertThat(run("--resources", "pods").out(), not(containsString("pods/ephemeralcontainers")));
    }

    /** F11: the webhook port from the given addresses only, the admin port from the cluster's pods. */
    @Test
    void theNetworkPolicyAdmitsTheWebhookPortFromTheGivenCidrsAndTheAdminPortFromTheCluster() throws IOException {
        Result hardened = run("--webhook-ingress-cidr", "172.18.0.0/16, 10.0.0.1/32");
        assertThat(hardened.err(), is(""));
        var policy = only(Yaml.loadAll(hardened.out()), V1NetworkPolicy.class);
        assertThat(policy.getMetadata().getName(), is("remold-webhook"));
        assertThat(policy.getSpec().getPolicyTypes(), contains("Ingress"));
        assertThat(policy.getSpec().getPodSelector().getMatchLabels(), hasEntry("app.kubernetes.io/component", "server"));
        var ingress = policy.getSpec().getIngress();
        assertThat(ingress.size(), is(2));
        assertThat(ingress.get(0).getPorts().get(0).getPort(), is(new IntOrString(8443)));
        assertThat(ingress.get(0).getFrom().stream().map(p -> p.getIpBlock().getCidr()).toList(),
                contains("172.18.0.0/16", "10.0.0.1/32"));
        assertThat(ingress.get(1).getPorts().get(0).getPort(), is(new IntOrString(8081)));
        assertThat(ingress.get(1).getFrom().get(0).getNamespaceSelector().getMatchExpressions().get(0).getOperator(),
                is("Exists"));

        Result open = run();
        assertThat(only(Yaml.loadAll(open.out()), V1NetworkPolicy.class).getSpec().getIngress().get(0).getFrom()
                .stream().map(p -> p.getIpBlock().getCidr()).toList(), contains("0.0.0.0/0", "::/0"));
        assertThat(open.err(), containsString("admits the webhook port from any address: pass --webhook-ingress-cidr"));
        assertThat(run("--webhook-ingress-cidr", "10.0.0.0/33").err(), containsString("item 1 '10.0.0.0/33'"));
    }

    /** Probes on the plain-HTTP admin port: answered while the webhook port is saturated, without a client certificate. */
    @Test
    void theServerListensOnTheWebhookAndAdminPortsAndIsProbedOnTheAdminPort() throws IOException {
        var server = serverContainer(Yaml.loadAll(run().out()));
        assertThat(server.getPorts().stream().map(p -> p.getName() + " " + p.getContainerPort()).toList(),
                contains("https 8443", "admin 8081"));
        assertThat(server.getArgs(), hasItem("--admin-port=8081"));
        for (V1Probe probe : List.of(server.getReadinessProbe(), server.getLivenessProbe())) {
            assertThat(probe.getHttpGet().getPort(), is(new IntOrString("admin")));
            assertThat(probe.getHttpGet().getScheme(), is("HTTP"));
        }
    }

    /** F11: mutual TLS: the CA reaches the server as a mounted file named by REMOLD_CLIENT_CA. */
    @Test
    void theClientCaIsAConfigMapMountedIntoTheServerAndNamedByItsEnvironment() throws IOException {
        List<Object> objects = Yaml.loadAll(run("--client-ca-file", caFile()).out());
        var configMap = only(objects, V1ConfigMap.class);
        assertThat(configMap.getMetadata().getName(), is("remold-client-ca"));
        assertThat(configMap.getData().get("ca.crt"), is(Files.readString(Path.of(caFile()))));
        var server = serverContainer(objects);
        String file = env(server, "REMOLD_CLIENT_CA");
        var mount = server.getVolumeMounts().stream().filter(m -> file.startsWith(m.getMountPath() + "/"))
                .findFirst().orElseThrow();
        assertThat(file.substring(mount.getMountPath().length() + 1), is("ca.crt"));
        var volume = only(objects, V1Deployment.class).getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals(mount.getName())).findFirst().orElseThrow();
        assertThat(volume.getConfigMap().getName(), is("remold-client-ca"));

        List<Object> without = Yaml.loadAll(run().out());
        assertThat(without.stream().filter(V1ConfigMap.class::isInstance).toList(), is(empty()));
        assertThat(env(serverContainer(without), "REMOLD_CLIENT_CA"), is(nullValue()));
    }

    @Test
    void tenantScriptsReachTheServerThroughItsEnvironment() throws IOException {
        assertThat(env(serverContainer(Yaml.loadAll(run("--tenant-scripts", "team-a,team-b").out())),
                "REMOLD_TENANT_SCRIPTS"), is("team-a,team-b"));
        assertThat(env(serverContainer(Yaml.loadAll(run("--tenant-scripts", "*").out())), "REMOLD_TENANT_SCRIPTS"),
                is("*"));
        assertThat(env(serverContainer(Yaml.loadAll(run().out())), "REMOLD_TENANT_SCRIPTS"), is(nullValue()));
    }

    /** F15: the server runs tenants' JavaScript; it may patch pods only when node annotations are asked for. */
    @Test
    void podsArePatchedAndBindingsSentOnlyWithNodeAnnotations() throws IOException {
        List<Object> without = Yaml.loadAll(run().out());
        assertThat(serverRules(without, ""), not(hasItem(containsString("pods"))));
        assertThat(only(without, V1MutatingWebhookConfiguration.class).getWebhooks().stream()
                .map(V1MutatingWebhook::getName).toList(), contains("mutate.remold.io"));
        assertThat(serverContainer(without).getArgs(), not(hasItem("--node-annotations")));

        List<Object> with = Yaml.loadAll(run("--node-annotations").out());
        assertThat(serverRules(with, ""), hasItem("[pods] [get, patch]"));
        assertThat(only(with, V1MutatingWebhookConfiguration.class).getWebhooks().stream()
                .map(V1MutatingWebhook::getName).toList(), contains("mutate.remold.io", "binding.remold.io"));
        assertThat(serverContainer(with).getArgs(), hasItem("--node-annotations"));
    }

    /** F12: with references, /validate-modrule asks whether a rule's author may read what it references. */
    @Test
    void theServerMayReviewAccessOnlyWhenRulesMayReferenceSomething() throws IOException {
        assertThat(serverRules(Yaml.loadAll(run("--allow-references", "secrets").out()), "authorization.k8s.io"),
                contains("[subjectaccessreviews] [create]"));
        assertThat(serverRules(Yaml.loadAll(run().out()), "authorization.k8s.io"), is(empty()));
    }

    private static V1Container serverContainer(List<Object> objects) {
        return only(objects, V1Deployment.class).getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    private static String env(V1Container container, String name) {
        return container.getEnv().stream().filter(e -> e.getName().equals(name)).map(V1EnvVar::getValue).findFirst()
                .orElse(null);
    }

    /**
     * S7: the README runs the installer with the PATH's java, which may be 17: its classes and dependencies run
     * there (the jar's manifest names the same dependencies) and write the same bundle.
     */
    @Test
    void theInstallerRunsOnJava17() throws IOException, InterruptedException {
        Path java17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64/bin/java");
        assumeTrue(Files.isExecutable(java17), "no JDK 17 at " + java17);
        Process process = new ProcessBuilder(java17.toString(), "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "--tag", "1.0.0").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String bundle = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(), is(0));
        assertThat(bundle, equalTo(Files.readString(GOLDEN.resolve("default.yaml"))));
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
                "--ca-file", "--kubemod-compat", "--cert-manager", "--webhook-ingress-cidr", "--client-ca-file",
                "--tenant-scripts", "--node-annotations", "--kinitiras-compat")) {
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
                Arguments.of(new String[] {"--webhook-url", "https://h", "--cert-manager"}, "exclude each other"),
                Arguments.of(new String[] {"--webhook-ingress-cidr", "10.0.0.0"}, "item 1 '10.0.0.0' is not valid"),
                Arguments.of(new String[] {"--webhook-ingress-cidr", "0.0.0.0/0,10.1.2.300/8"}, "item 2"),
                Arguments.of(new String[] {"--client-ca-file", "/nonexistent/ca.crt"},
                        "option --client-ca-file: cannot read /nonexistent/ca.crt"),
                Arguments.of(new String[] {"--webhook-url", "https://h", "--client-ca-file", "ca.crt"},
                        "configure the in-cluster server"),
                Arguments.of(new String[] {"--webhook-url", "https://h", "--tenant-scripts", "team-a"},
                        "configure the in-cluster server"),
                Arguments.of(new String[] {"--tenant-scripts", "Team_A"}, "option --tenant-scripts: item 1 'Team_A'"),
                Arguments.of(new String[] {"--webhook-url", "https://h", "--service-monitor"},
                        "--service-monitor scrapes the in-cluster server"),
                Arguments.of(new String[] {"--priority-class", "High_Priority"},
                        "option --priority-class: 'High_Priority' is not a DNS subdomain"),
                Arguments.of(new String[] {"--max-replicas", "101"}, "option --max-replicas: '101' is not a whole number"),
                Arguments.of(new String[] {"--ignore-namespaces", "team-a,Team_B"},
                        "option --ignore-namespaces: item 2 'Team_B'"),
                Arguments.of(new String[] {"--node-selector", "kubernetes.io/os"},
                        "option --node-selector: item 1 'kubernetes.io/os' is not valid"),
                Arguments.of(new String[] {"--tolerations", "dedicated=remold:NoRun"},
                        "option --tolerations: item 1 'dedicated=remold:NoRun' is not valid"),
                Arguments.of(new String[] {"--replicas", "3", "--max-replicas", "2"},
                        "option --max-replicas: 2 is fewer than --replicas 3"),
                Arguments.of(new String[] {"--server-cpu", "1.5cores"},
                        "option --server-cpu: '1.5cores' is not a CPU quantity"),
                Arguments.of(new String[] {"--server-cpu-limit", "-1"},
                        "option --server-cpu-limit: '-1' is not a CPU quantity"),
                Arguments.of(new String[] {"--server-memory", "512"},
                        "option --server-memory: '512' is not a memory quantity"),
                Arguments.of(new String[] {"--server-cpu", "2"}, "option --server-cpu: 2 is more than --server-cpu-limit 1"),
                Arguments.of(new String[] {"--server-cpu", "500m", "--server-cpu-limit", "250m"},
                        "option --server-cpu: 500m is more than --server-cpu-limit 250m"),
                Arguments.of(new String[] {"--log-level", "FINE"},
                        "option --log-level: 'FINE' is not one of error, warn, info, debug"),
                Arguments.of(new String[] {"--drain-seconds", "21"},
                        "option --drain-seconds: '21' is not a whole number from 0 to 20"));
    }

    @ParameterizedTest
    @MethodSource("invalidOptions")
    void invalidOptionsExitWithCode2AndNameTheOption(String[] args, String message) {
        Result result = run(args);
        assertThat(result.code(), is(2));
        assertThat(result.out(), is(""));
        assertThat(result.err(), containsString(message));
    }

    @Test
    void ignoredNamespacesJoinKubeSystemInTheDragnetWebhooksAndNodeSelectorAndTolerationsPlaceTheServer()
            throws UsageException {
        List<Object> objects = new Bundle(InstallOptions.parse(List.of("--ignore-namespaces", "team-a,monitoring",
                "--node-selector", "kubernetes.io/os=linux,node-role.example/infra=", "--node-annotations",
                "--tolerations", "dedicated=remold:NoSchedule,node-role.kubernetes.io/control-plane,spot="))).objects();
        var mutating = only(objects, io.kubernetes.client.openapi.models.V1MutatingWebhookConfiguration.class);
        for (var webhook : mutating.getWebhooks()) {
            var names = webhook.getNamespaceSelector().getMatchExpressions().stream()
                    .filter(r -> r.getKey().equals("kubernetes.io/metadata.name")).findFirst().orElseThrow();
            assertThat(webhook.getName(), names.getValues(), is(List.of("kube-system", "team-a", "monitoring")));
        }
        var validating = only(objects, io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration.class);
        assertThat(validating.getWebhooks().get(1).getName(), is("modrule.remold.io"));
        assertThat("ModRules are validated in ignored namespaces too",
                validating.getWebhooks().get(1).getNamespaceSelector().getMatchExpressions().get(0).getValues(),
                is(List.of("kube-system")));
        assertThat(only(objects, V1Deployment.class).getSpec().getTemplate().getSpec().getNodeSelector(),
                is(java.util.Map.of("kubernetes.io/os", "linux", "node-role.example/infra", "")));
        assertThat(only(objects, V1Deployment.class).getSpec().getTemplate().getSpec().getTolerations(), is(List.of(
                new io.kubernetes.client.openapi.models.V1Toleration().key("dedicated").operator("Equal").value("remold")
                        .effect("NoSchedule"),
                new io.kubernetes.client.openapi.models.V1Toleration().key("node-role.kubernetes.io/control-plane")
                        .operator("Exists"),
                new io.kubernetes.client.openapi.models.V1Toleration().key("spot").operator("Equal").value(""))));
    }

    @Test
    void maxReplicasScalesTheServerFromReplicasAndPriorityClassNamesThePodsPriority() throws UsageException {
        List<Object> objects = new Bundle(InstallOptions.parse(List.of("--replicas", "3", "--max-replicas", "10",
                "--priority-class", "system-cluster-critical"))).objects();
        var autoscaler = only(objects, io.kubernetes.client.openapi.models.V2HorizontalPodAutoscaler.class).getSpec();
        assertThat(autoscaler.getScaleTargetRef().getKind() + "/" + autoscaler.getScaleTargetRef().getName(),
                is("Deployment/" + Bundle.SERVER));
        assertThat(autoscaler.getMinReplicas(), is(3));
        assertThat(autoscaler.getMaxReplicas(), is(10));
        assertThat(autoscaler.getMetrics().get(0).getResource().getTarget().getAverageUtilization(),
                is(Bundle.AUTOSCALE_CPU_PERCENT));
        assertThat(only(objects, V1Deployment.class).getSpec().getTemplate().getSpec().getPriorityClassName(),
                is("system-cluster-critical"));

        List<Object> defaults = new Bundle(InstallOptions.defaults()).objects();
        assertThat(defaults.stream().anyMatch(o -> o instanceof io.kubernetes.client.openapi.models.V2HorizontalPodAutoscaler),
                is(false));
        assertThat(only(defaults, V1Deployment.class).getSpec().getTemplate().getSpec().getPriorityClassName(),
                is((String) null));
    }

    /** The server container's resources and drain: as given, else the bundle's own (768Mi with CUE workers). */
    static Stream<Arguments> serverSizes() {
        return Stream.of(
                Arguments.of(List.of(), "100m", "1", "256Mi", "--drain-seconds=5"),
                Arguments.of(List.of("--kinitiras-compat"), "100m", "1", "768Mi", "--drain-seconds=5"),
                Arguments.of(List.of("--server-cpu", "250m", "--server-cpu-limit", "2", "--server-memory", "512Mi",
                        "--drain-seconds", "0"), "250m", "2", "512Mi", "--drain-seconds=0"),
                Arguments.of(List.of("--kinitiras-compat", "--server-memory=1Gi", "--server-cpu=1",
                        "--drain-seconds=20"), "1", "1", "1Gi", "--drain-seconds=20"));
    }

    @ParameterizedTest
    @MethodSource("serverSizes")
    void serverOptionsSizeTheServerContainerAndSetItsDrain(List<String> args, String cpu, String cpuLimit,
                                                           String memory, String drain) throws UsageException {
        var server = only(new Bundle(InstallOptions.parse(args)).objects(), V1Deployment.class).getSpec()
                .getTemplate().getSpec().getContainers().get(0);
        var resources = server.getResources();
        assertThat(resources.getRequests().get("cpu").toSuffixedString(), is(cpu));
        assertThat(resources.getLimits().get("cpu").toSuffixedString(), is(cpuLimit));
        assertThat(resources.getRequests().get("memory").toSuffixedString(), is(memory));
        assertThat(resources.getLimits().get("memory").toSuffixedString(), is(memory));
        assertThat(server.getArgs(), hasItem(drain));
        assertThat(server.getArgs().stream().filter(a -> a.startsWith("--drain-seconds=")).count(), is(1L));
    }

    @Test
    void logLevelIsPassedToTheServerOnlyWhenGiven() throws UsageException {
        var given = only(new Bundle(InstallOptions.parse(List.of("--log-level", "debug"))).objects(), V1Deployment.class);
        assertThat(given.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs(), hasItem("--log-level=debug"));
        var unset = only(new Bundle(InstallOptions.defaults()).objects(), V1Deployment.class);
        assertThat(unset.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs().stream()
                .noneMatch(a -> a.startsWith("--log-level")), is(true));
    }

    private static <T> T only(List<Object> objects, Class<T> type) {
        List<T> matching = objects.stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(type.getSimpleName(), matching.size(), is(1));
        return matching.get(0);
    }
}

package io.remold.installer;

import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.AdmissionregistrationV1ServiceReference;
import io.kubernetes.client.openapi.models.AdmissionregistrationV1WebhookClientConfig;
import io.kubernetes.client.openapi.models.RbacV1Subject;
import io.kubernetes.client.openapi.models.V1Capabilities;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ConfigMapVolumeSource;
import io.kubernetes.client.openapi.models.V1ClusterRole;
import io.kubernetes.client.openapi.models.V1ClusterRoleBinding;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1CronJob;
import io.kubernetes.client.openapi.models.V1CronJobSpec;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStrategy;
import io.kubernetes.client.openapi.models.V1EmptyDirVolumeSource;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1EnvVarSource;
import io.kubernetes.client.openapi.models.V1HTTPGetAction;
import io.kubernetes.client.openapi.models.V1IPBlock;
import io.kubernetes.client.openapi.models.V1Job;
import io.kubernetes.client.openapi.models.V1JobSpec;
import io.kubernetes.client.openapi.models.V1JobTemplateSpec;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1LabelSelectorRequirement;
import io.kubernetes.client.openapi.models.V1MatchCondition;
import io.kubernetes.client.openapi.models.V1MutatingWebhook;
import io.kubernetes.client.openapi.models.V1MutatingWebhookConfiguration;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1NetworkPolicyIngressRule;
import io.kubernetes.client.openapi.models.V1NetworkPolicyPeer;
import io.kubernetes.client.openapi.models.V1NetworkPolicyPort;
import io.kubernetes.client.openapi.models.V1NetworkPolicySpec;
import io.kubernetes.client.openapi.models.V1ObjectFieldSelector;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1PodDisruptionBudget;
import io.kubernetes.client.openapi.models.V1PodDisruptionBudgetSpec;
import io.kubernetes.client.openapi.models.V1PodSecurityContext;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1PolicyRule;
import io.kubernetes.client.openapi.models.V1Probe;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1Role;
import io.kubernetes.client.openapi.models.V1RoleBinding;
import io.kubernetes.client.openapi.models.V1RoleRef;
import io.kubernetes.client.openapi.models.V1RollingUpdateDeployment;
import io.kubernetes.client.openapi.models.V1RuleWithOperations;
import io.kubernetes.client.openapi.models.V1SeccompProfile;
import io.kubernetes.client.openapi.models.V1SecretVolumeSource;
import io.kubernetes.client.openapi.models.V1SecurityContext;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.openapi.models.V1Toleration;
import io.kubernetes.client.openapi.models.V1TopologySpreadConstraint;
import io.kubernetes.client.openapi.models.V1ValidatingWebhook;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import io.kubernetes.client.openapi.models.V1Volume;
import io.kubernetes.client.openapi.models.V1VolumeMount;
import io.kubernetes.client.openapi.models.V2CrossVersionObjectReference;
import io.kubernetes.client.openapi.models.V2HorizontalPodAutoscaler;
import io.kubernetes.client.openapi.models.V2HorizontalPodAutoscalerSpec;
import io.kubernetes.client.openapi.models.V2MetricSpec;
import io.kubernetes.client.openapi.models.V2MetricTarget;
import io.kubernetes.client.openapi.models.V2ResourceMetricSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every object of an installation, in the order {@code kubectl apply} should create them: the namespace and CRDs
 * first, then identities and RBAC, the workloads, and the webhook configurations last (so that the API server does
 * not call a webhook whose server cannot exist yet).
 */
final class Bundle {
    /**
     * JVM flags of the server container, as the benchmarks recommend: the serial collector and a fixed heap that
     * leaves room for metaspace, code cache and thread stacks within {@link #SERVER_MEMORY}, with a young
     * generation capped at 24 MB (uncapped, it grew to its 42 MB maximum under load and RSS passed 200 MiB);
     * compact object headers (JDK 25, the image's runtime) shrink every object; native memory freed by the JIT is
     * returned to the system every second instead of staying in the C heap. A server that runs out of heap exits
     * and is restarted. The image's AOT cache (see the Dockerfile, trained with these flags) nearly halves the time
     * to ready; the container's command replaces the image's entrypoint, so the cache is named here too.
     */
    static final String SERVER_JVM_OPTIONS = "-XX:+UseSerialGC -Xms64m -Xmx128m -XX:MaxNewSize=24m -Xss512k"
            + " -XX:+UseCompactObjectHeaders -XX:TrimNativeHeapInterval=1000 -XX:+ExitOnOutOfMemoryError"
            + " -XX:AOTCache=/app/remold.aot"
            // GraalJS (script rules) loads native code and uses sun.misc.Unsafe: allowed, without JDK 24+ warnings.
            + " --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow";
    /** Memory request and limit of a server container: equal, so the pod is not the first one evicted. */
    static final String SERVER_MEMORY = "256Mi";
    /**
     * The same with --kinitiras-compat: the JVM's {@link #SERVER_MEMORY} plus room for the CUE workers that
     * kinitiras's {@code cue} policies start, each a process of its own in the container, bounded by the kernel
     * (RLIMIT_DATA) at 256 MiB, two at most ({@code CueLimits.DEFAULT}): 256 + 2 x 256 MiB. A worker at its bound
     * dies alone (its policy fails); the container is never the one killed. Workers start only with the first CUE
     * policy, so the limit is reserved, not used, by a server without one (a worker is about 16 MB resident).
     */
    static final String SERVER_MEMORY_WITH_CUE = "768Mi";
    /**
     * JVM flags of the certgen container, a short-lived client: C1 only, a small fixed heap. Measured against a
     * real API server it peaks at about 125 MiB resident (heap, and class metadata of client-java, OkHttp and
     * BouncyCastle), hence {@link #CERTGEN_MEMORY_LIMIT}.
     */
    static final String CERTGEN_JVM_OPTIONS = "-XX:+UseSerialGC -Xmx64m -Xss512k -XX:TieredStopAtLevel=1"
            + " -XX:+UseCompactObjectHeaders";
    static final String CERTGEN_MEMORY_LIMIT = "192Mi";

    /** Where the image (the repository's Dockerfile) puts the programs, and the uid it runs them as. */
    static final String SERVER_JAR = "/app/remold-server.jar";
    static final String CERTGEN_JAR = "/app/remold-certgen.jar";
    static final long IMAGE_UID = 65532;

    static final String NAME = "remold";
    static final String SERVER = "remold-server";
    static final String CERTGEN = "remold-certgen";
    static final String SERVICE = "remold";
    static final String TLS_SECRET = "remold-tls";
    /** The server's leader-election Lease (the server's default name). */
    static final String LEADER_LEASE = "remold-leader";
    static final String MUTATING_CONFIG = "remold-mutating";
    static final String VALIDATING_CONFIG = "remold-validating";
    static final String IGNORE_LABEL = "admission.remold.io/ignore";
    static final String KUBEMOD_IGNORE_LABEL = "admission.kubemod.io/ignore";
    static final int CONTAINER_PORT = 8443;
    /** The server's plain-HTTP port for probes and metrics (its admin-port), outside the webhook port's request cap. */
    static final int ADMIN_PORT = 8081;
    static final String TLS_DIR = "/etc/remold/tls";
    /** The CA of the API server's client certificate (--client-ca-file), and where the server reads it. */
    static final String CLIENT_CA = "remold-client-ca";
    static final String CLIENT_CA_KEY = "ca.crt";
    static final String CLIENT_CA_DIR = "/etc/remold/client-ca";
    static final String NETWORK_POLICY = "remold-webhook";
    /**
     * A terminating server keeps answering this long, not ready and closing connections after each response, while
     * kube-proxy and the API server's kept-alive connections move to the other replicas (the kind e2e measured zero
     * failed admissions through rollouts with it). Drain plus the 10 s shutdown grace stays inside the pod's 30 s.
     */
    static final int DRAIN_SECONDS = 5;
    /** CPU request and limit of a server container unless told: the autoscaler's percentages are of the request. */
    static final String SERVER_CPU = "100m";
    static final String SERVER_CPU_LIMIT = "1";
    /** The average CPU use, in percent of the request, above which the autoscaler adds replicas. */
    static final int AUTOSCALE_CPU_PERCENT = 70;
    static final String RBAC_GROUP = "rbac.authorization.k8s.io";
    /** The Helm chart's pre-delete hook's ServiceAccount, ClusterRole, ClusterRoleBinding and Job. */
    static final String UNINSTALL_HOOK = "remold-uninstall";
    static final String REMOLD_GROUP = "remold.io";
    static final String REPORTS_GROUP = "openreports.io";
    static final String KUBEMOD_GROUP = "api.kubemod.io";
    static final String GATEKEEPER_GROUP = "mutations.gatekeeper.sh";
    static final List<String> GATEKEEPER_MUTATORS = List.of("assign", "assignimage", "assignmetadata", "modifyset");
    static final String SCRIPT_GROUP = "momiji.com";
    static final List<String> SCRIPT_RULES = List.of("clusterjsadmissions", "jsadmissions");

    private final InstallOptions options;
    private final String ns;

    Bundle(InstallOptions options) {
        this.options = options;
        this.ns = options.namespace();
    }

    /** Model objects, plus plain maps for cert-manager's kinds (which have no client-java model). */
    List<Object> objects() {
        var objects = new ArrayList<Object>();
        objects.add(namespace());
        objects.add(Crds.remold());
        objects.add(Crds.providers());
        if (options.kubemodCompat()) {
            objects.add(Crds.kubemod());
        }
        if (options.gatekeeperCompat()) {
            objects.addAll(Crds.gatekeeper());
        }
        if (options.jsAdmissionsCompat()) {
            objects.addAll(Crds.jsAdmissions());
        }
        if (options.kinitirasCompat()) {
            objects.addAll(KinitirasCrds.all());
        }
        if (options.reports()) {
            objects.addAll(Crds.reports());
        }
        objects.add(serviceAccount(SERVER));
        if (certgenRuns()) {
            objects.add(serviceAccount(CERTGEN));
        }
        objects.add(serverClusterRole());
        objects.add(clusterRoleBinding(SERVER));
        if (certgenRuns()) {
            objects.add(certgenClusterRole());
            objects.add(clusterRoleBinding(CERTGEN));
        }
        objects.add(serverRole());
        objects.add(roleBinding(SERVER));
        if (certgenRuns()) {
            objects.add(certgenRole());
            objects.add(roleBinding(CERTGEN));
        }
        if (options.inCluster()) {
            objects.add(service());
            objects.add(networkPolicy());
            if (options.clientCa() != null) {
                objects.add(clientCaConfigMap());
            }
            objects.add(deployment());
            objects.add(disruptionBudget());
            if (options.maxReplicas() > 0) {
                objects.add(autoscaler());
            }
            if (options.certManager()) {
                objects.addAll(CertManager.objects(ns, TLS_SECRET, serviceDnsNames()));
            } else {
                objects.add(certgenJob());
                objects.add(certgenCronJob());
            }
        }
        objects.addAll(Monitoring.objects(options, meta(NAME).getLabels()));
        List<V1MatchCondition> notTheBundle = notTheBundle(objects);
        objects.add(mutatingConfiguration(notTheBundle));
        objects.add(validatingConfiguration(notTheBundle));
        return objects;
    }

    private boolean certgenRuns() {
        return options.inCluster() && !options.certManager();
    }

    List<String> serviceDnsNames() {
        return List.of(SERVICE, SERVICE + "." + ns, SERVICE + "." + ns + ".svc", SERVICE + "." + ns + ".svc.cluster.local");
    }

    private V1ObjectMeta meta(String name) {
        var labels = new TreeMap<String, String>(Map.of("app.kubernetes.io/name", NAME,
                "app.kubernetes.io/part-of", NAME));
        return new V1ObjectMeta().name(name).labels(labels);
    }

    private V1ObjectMeta namespacedMeta(String name) {
        return meta(name).namespace(ns);
    }

    /**
     * The system namespace carries the ignore label, which the webhooks' namespace selectors honour: its objects
     * never wait for a server that lives there. Only who may label Namespaces (an administrator) can exempt one.
     */
    private V1Namespace namespace() {
        V1ObjectMeta meta = meta(ns);
        meta.getLabels().put(IGNORE_LABEL, "true");
        return new V1Namespace().apiVersion("v1").kind("Namespace").metadata(meta);
    }

    private V1ServiceAccount serviceAccount(String name) {
        return new V1ServiceAccount().apiVersion("v1").kind("ServiceAccount").metadata(namespacedMeta(name));
    }

    private List<String> modruleGroups() {
        return options.kubemodCompat() ? List.of(REMOLD_GROUP, KUBEMOD_GROUP) : List.of(REMOLD_GROUP);
    }

    private static V1PolicyRule rule(String group, List<String> resources, List<String> verbs) {
        return new V1PolicyRule().apiGroups(List.of(group)).resources(resources).verbs(verbs);
    }

    /**
     * The server reads rules and the objects synthetic references come from, and writes rule status (and node refs
     * with --node-annotations: it runs tenants' JavaScript, so it may not patch pods unless asked); its leader keeps
     * the validating webhook's namespace selector and scope to where Reject rules apply.
     */
    private V1ClusterRole serverClusterRole() {
        List<String> groups = modruleGroups();
        var rules = new ArrayList<>(List.of(
                new V1PolicyRule().apiGroups(groups).resources(List.of("modrules")).verbs(List.of("get", "list", "watch")),
                new V1PolicyRule().apiGroups(groups).resources(List.of("modrules/status")).verbs(List.of("patch", "update")),
                // external data Providers: read, and their Ready condition written (never created or changed)
                rule(REMOLD_GROUP, List.of("providers"), List.of("get", "list", "watch")),
                rule(REMOLD_GROUP, List.of("providers/status"), List.of("patch", "update")),
                rule("", List.of("namespaces", "nodes"), List.of("get", "list", "watch")),
                rule("admissionregistration.k8s.io", List.of("validatingwebhookconfigurations"), List.of("get", "patch"))
                        .resourceNames(List.of(VALIDATING_CONFIG))));
        if (options.nodeAnnotations()) {
            rules.add(rule("", List.of("pods"), List.of("get", "patch")));
        }
        // spec.references: exactly the allowed resources, grouped by API group
        byGroup(options.allowReferences()).forEach((group, plurals) ->
                rules.add(rule(group, plurals, List.of("get", "list", "watch"))));
        if (!options.allowReferences().isEmpty()) {
            // /validate-modrule asks whether a rule's author may read what the rule references
            rules.add(rule("authorization.k8s.io", List.of("subjectaccessreviews"), List.of("create")));
        }
        // existing: Apply writes, through server-side apply, what the rule's impact scan lists: exactly the operator's
        // resources (without list the scan is Forbidden and nothing is applied)
        byGroup(options.existingApply()).forEach((group, plurals) ->
                rules.add(rule(group, plurals, List.of("get", "list", "patch"))));
        // script rules' events: exactly the --script-kinds resources, grouped by API group
        byGroup(options.scriptKinds()).forEach((group, plurals) ->
                rules.add(rule(group, plurals, List.of("get", "list", "watch"))));
        if (options.jsAdmissionsCompat()) {
            rules.add(rule(SCRIPT_GROUP, SCRIPT_RULES, List.of("get", "list", "watch")));
            rules.add(rule(SCRIPT_GROUP, SCRIPT_RULES.stream().map(r -> r + "/status").toList(),
                    List.of("patch", "update")));
        }
        if (options.gatekeeperCompat()) {
            rules.add(rule(GATEKEEPER_GROUP, GATEKEEPER_MUTATORS, List.of("get", "list", "watch")));
            rules.add(rule(GATEKEEPER_GROUP, GATEKEEPER_MUTATORS.stream().map(r -> r + "/status").toList(),
                    List.of("patch", "update")));
        }
        if (options.kinitirasCompat()) {
            // status: the bundle's CRDs have the subresource; on kinitiras's own (none) the patch answers 404, which
            // the server's status writer takes as "no status here" and stops (a 403 it would retry for ever)
            rules.add(rule(KinitirasCrds.GROUP, KinitirasCrds.PLURALS, List.of("get", "list", "watch")));
            rules.add(rule(KinitirasCrds.GROUP, KinitirasCrds.PLURALS.stream().map(r -> r + "/status").toList(),
                    List.of("patch", "update")));
        }
        if (options.reports()) {
            // the leader's reports, one per rule and namespace: applied (created or updated) and deleted
            rules.add(rule(REPORTS_GROUP, List.of("reports", "clusterreports"),
                    List.of("get", "create", "patch", "delete")));
        }
        return new V1ClusterRole().apiVersion(RBAC_GROUP + "/v1").kind("ClusterRole").metadata(meta(SERVER)).rules(rules);
    }

    /** {@code [group/]plural} resources by API group ({@code ""}: the core group), in order. */
    private static Map<String, List<String>> byGroup(List<String> resources) {
        var out = new TreeMap<String, List<String>>();
        for (String resource : resources) {
            int slash = resource.indexOf('/');
            out.computeIfAbsent(slash < 0 ? "" : resource.substring(0, slash), g -> new ArrayList<>())
                    .add(resource.substring(slash + 1));
        }
        return out;
    }

    /** Leader election (client-java's LeaseLock reads, creates and replaces one Lease), in the system namespace. */
    private V1Role serverRole() {
        return new V1Role().apiVersion(RBAC_GROUP + "/v1").kind("Role").metadata(namespacedMeta(SERVER)).rules(List.of(
                rule("coordination.k8s.io", List.of("leases"), List.of("get", "update")).resourceNames(List.of(LEADER_LEASE)),
                rule("coordination.k8s.io", List.of("leases"), List.of("create"))));
    }

    /** certgen touches its own Secret and the two webhook configurations only. */
    private V1Role certgenRole() {
        return new V1Role().apiVersion(RBAC_GROUP + "/v1").kind("Role").metadata(namespacedMeta(CERTGEN)).rules(List.of(
                rule("", List.of("secrets"), List.of("get", "update")).resourceNames(List.of(TLS_SECRET)),
                // create cannot be limited by resourceNames: the name is not known before the object exists
                rule("", List.of("secrets"), List.of("create"))));
    }

    private V1ClusterRole certgenClusterRole() {
        return new V1ClusterRole().apiVersion(RBAC_GROUP + "/v1").kind("ClusterRole").metadata(meta(CERTGEN)).rules(List.of(
                rule("admissionregistration.k8s.io", List.of("mutatingwebhookconfigurations"), List.of("get", "patch"))
                        .resourceNames(List.of(MUTATING_CONFIG)),
                rule("admissionregistration.k8s.io", List.of("validatingwebhookconfigurations"), List.of("get", "patch"))
                        .resourceNames(List.of(VALIDATING_CONFIG))));
    }

    private RbacV1Subject subject(String serviceAccount) {
        return new RbacV1Subject().kind("ServiceAccount").name(serviceAccount).namespace(ns);
    }

    private V1ClusterRoleBinding clusterRoleBinding(String name) {
        return new V1ClusterRoleBinding().apiVersion(RBAC_GROUP + "/v1").kind("ClusterRoleBinding").metadata(meta(name))
                .roleRef(new V1RoleRef().apiGroup(RBAC_GROUP).kind("ClusterRole").name(name))
                .subjects(List.of(subject(name)));
    }

    private V1RoleBinding roleBinding(String name) {
        return new V1RoleBinding().apiVersion(RBAC_GROUP + "/v1").kind("RoleBinding").metadata(namespacedMeta(name))
                .roleRef(new V1RoleRef().apiGroup(RBAC_GROUP).kind("Role").name(name))
                .subjects(List.of(subject(name)));
    }

    static Map<String, String> serverSelector() {
        return Map.of("app.kubernetes.io/name", NAME, "app.kubernetes.io/component", "server");
    }

    private V1Service service() {
        return new V1Service().apiVersion("v1").kind("Service").metadata(namespacedMeta(SERVICE)).spec(new V1ServiceSpec()
                .selector(serverSelector())
                .ports(List.of(new V1ServicePort().name("https").port(443).targetPort(new IntOrString("https")))));
    }

    /** On the admin port: probes are answered while the webhook port is saturated, and need no client certificate. */
    private static V1Probe probe(String path, int periodSeconds, int failureThreshold) {
        return new V1Probe().httpGet(new V1HTTPGetAction().path(path).port(new IntOrString("admin")).scheme("HTTP"))
                .periodSeconds(periodSeconds).timeoutSeconds(2).failureThreshold(failureThreshold);
    }

    /**
     * The webhook port admits the API server's addresses only (--webhook-ingress-cidr), the admin port (probes,
     * metrics) any pod of the cluster; the kubelet's probes come from the node, which a NetworkPolicy never blocks.
     */
    private V1NetworkPolicy networkPolicy() {
        var webhook = new V1NetworkPolicyIngressRule()
                .ports(List.of(new V1NetworkPolicyPort().protocol("TCP").port(new IntOrString(CONTAINER_PORT))))
                .from(options.webhookIngressCidrs().stream()
                        .map(cidr -> new V1NetworkPolicyPeer().ipBlock(new V1IPBlock().cidr(cidr))).toList());
        var admin = new V1NetworkPolicyIngressRule()
                .ports(List.of(new V1NetworkPolicyPort().protocol("TCP").port(new IntOrString(ADMIN_PORT))))
                // every namespace: each has this label (an empty selector would be dropped as an unset field)
                .from(List.of(new V1NetworkPolicyPeer().namespaceSelector(new V1LabelSelector().matchExpressions(
                        List.of(new V1LabelSelectorRequirement().key("kubernetes.io/metadata.name").operator("Exists"))))));
        return new V1NetworkPolicy().apiVersion("networking.k8s.io/v1").kind("NetworkPolicy")
                .metadata(namespacedMeta(NETWORK_POLICY)).spec(new V1NetworkPolicySpec()
                        .podSelector(new V1LabelSelector().matchLabels(serverSelector()))
                        .policyTypes(List.of("Ingress")).ingress(List.of(webhook, admin)));
    }

    private V1ConfigMap clientCaConfigMap() {
        return new V1ConfigMap().apiVersion("v1").kind("ConfigMap").metadata(namespacedMeta(CLIENT_CA))
                .data(Map.of(CLIENT_CA_KEY, new String(options.clientCa(), StandardCharsets.US_ASCII)));
    }

    private static V1EnvVar fieldEnv(String name, String fieldPath) {
        return new V1EnvVar().name(name).valueFrom(new V1EnvVarSource().fieldRef(new V1ObjectFieldSelector().fieldPath(fieldPath)));
    }

    private static V1SecurityContext restrictedContainer() {
        return new V1SecurityContext().allowPrivilegeEscalation(false).readOnlyRootFilesystem(true)
                .capabilities(new V1Capabilities().drop(List.of("ALL")));
    }

    private static V1PodSecurityContext restrictedPod() {
        return new V1PodSecurityContext().runAsNonRoot(true).runAsUser(IMAGE_UID).runAsGroup(IMAGE_UID)
                .seccompProfile(new V1SeccompProfile().type("RuntimeDefault"));
    }

    private static V1Volume tmpVolume() {
        return new V1Volume().name("tmp").emptyDir(new V1EmptyDirVolumeSource().sizeLimit(Quantity.fromString("64Mi")));
    }

    private static V1VolumeMount tmpMount() {
        return new V1VolumeMount().name("tmp").mountPath("/tmp");
    }

    private static V1ResourceRequirements resources(String cpuRequest, String memoryRequest, String cpuLimit,
                                                    String memoryLimit) {
        return new V1ResourceRequirements()
                .requests(Map.of("cpu", Quantity.fromString(cpuRequest), "memory", Quantity.fromString(memoryRequest)))
                .limits(Map.of("cpu", Quantity.fromString(cpuLimit), "memory", Quantity.fromString(memoryLimit)));
    }

    private String serverMemory() {
        if (options.serverMemory() != null) {
            return options.serverMemory();
        }
        return options.kinitirasCompat() ? SERVER_MEMORY_WITH_CUE : SERVER_MEMORY;
    }

    /** The API groups of the rule and Provider CRDs this bundle installs. */
    private List<String> ruleCrdGroups() {
        var groups = new ArrayList<>(List.of(REMOLD_GROUP));
        if (options.kubemodCompat()) {
            groups.add(KUBEMOD_GROUP);
        }
        if (options.gatekeeperCompat()) {
            groups.add(GATEKEEPER_GROUP);
        }
        if (options.jsAdmissionsCompat()) {
            groups.add(SCRIPT_GROUP);
        }
        if (options.kinitirasCompat()) {
            groups.add(KinitirasCrds.GROUP);
        }
        return groups;
    }

    private V1Deployment deployment() {
        var selector = new V1LabelSelector().matchLabels(serverSelector());
        var labels = new TreeMap<>(serverSelector());
        labels.put("app.kubernetes.io/part-of", NAME);
        var args = new ArrayList<>(List.of("--port=" + CONTAINER_PORT, "--tls-cert=" + TLS_DIR + "/tls.crt",
                "--tls-key=" + TLS_DIR + "/tls.key", "--system-namespace=" + ns, "--in-cluster",
                "--drain-seconds=" + options.drainSeconds(), "--admin-port=" + ADMIN_PORT));
        if (!options.allowReferences().isEmpty()) {
            args.add("--allow-references=" + String.join(",", options.allowReferences()));
        }
        if (!options.allowHttpRef().isEmpty()) {
            args.add("--allow-http-ref=" + String.join(",", options.allowHttpRef()));
        }
        if (options.kinitirasCrossNamespaceOverrides()) {
            args.add("--kinitiras-cross-namespace-overrides");
        }
        if (options.kinitirasWebhookLabel()) {
            args.add("--kinitiras-webhook-label");
        }
        if (options.kubemodCompat()) {
            // KubeMod's namespace label and node-reference annotation (found missing by the kind e2e)
            args.add("--kubemod-compat");
        }
        // A replica stays unready until it watches the rule CRDs applied beside it: one that started before they
        // were served must not pass what the rules the leader writes Ready would change (found by the kind e2e).
        args.add("--rule-crds=" + String.join(",", ruleCrdGroups()));
        if (options.nodeAnnotations()) {
            args.add("--node-annotations");
        }
        if (options.reports()) {
            args.add("--reports");
        }
        if (options.logLevel() != null) {
            args.add("--log-level=" + options.logLevel());
        }
        var env = new ArrayList<>(List.of(new V1EnvVar().name("JAVA_TOOL_OPTIONS").value(SERVER_JVM_OPTIONS),
                fieldEnv("POD_NAME", "metadata.name"), fieldEnv("POD_NAMESPACE", "metadata.namespace")));
        if (!options.tenantScripts().isEmpty()) {
            env.add(new V1EnvVar().name("REMOLD_TENANT_SCRIPTS").value(String.join(",", options.tenantScripts())));
        }
        var mounts = new ArrayList<>(List.of(new V1VolumeMount().name("tls").mountPath(TLS_DIR).readOnly(true),
                tmpMount()));
        var volumes = new ArrayList<>(List.of(
                new V1Volume().name("tls").secret(new V1SecretVolumeSource().secretName(TLS_SECRET)), tmpVolume()));
        if (options.clientCa() != null) {
            // a ConfigMap volume follows edits of the ConfigMap; the server reloads the file when it changes
            env.add(new V1EnvVar().name("REMOLD_CLIENT_CA").value(CLIENT_CA_DIR + "/" + CLIENT_CA_KEY));
            mounts.add(new V1VolumeMount().name("client-ca").mountPath(CLIENT_CA_DIR).readOnly(true));
            volumes.add(new V1Volume().name("client-ca").configMap(new V1ConfigMapVolumeSource().name(CLIENT_CA)));
        }
        V1Container server = new V1Container().name("server").image(options.imageReference())
                .imagePullPolicy(options.imagePullPolicy())
                .command(List.of("java", "-jar", SERVER_JAR, "serve"))
                .args(args)
                .env(env)
                .ports(List.of(new V1ContainerPort().name("https").containerPort(CONTAINER_PORT).protocol("TCP"),
                        new V1ContainerPort().name("admin").containerPort(ADMIN_PORT).protocol("TCP")))
                .readinessProbe(probe("/readyz", 5, 2))
                .livenessProbe(probe("/healthz", 10, 3).initialDelaySeconds(10))
                .resources(resources(options.serverCpu(), serverMemory(), options.serverCpuLimit(), serverMemory()))
                .securityContext(restrictedContainer())
                .volumeMounts(mounts);
        var spread = List.of(
                new V1TopologySpreadConstraint().maxSkew(1).topologyKey("kubernetes.io/hostname")
                        .whenUnsatisfiable("ScheduleAnyway").labelSelector(selector),
                new V1TopologySpreadConstraint().maxSkew(1).topologyKey("topology.kubernetes.io/zone")
                        .whenUnsatisfiable("ScheduleAnyway").labelSelector(selector));
        V1PodSpec pod = new V1PodSpec().serviceAccountName(SERVER).priorityClassName(options.priorityClass())
                .nodeSelector(options.nodeSelector()).tolerations(tolerations())
                .securityContext(restrictedPod())
                .terminationGracePeriodSeconds(30L).topologySpreadConstraints(spread).containers(List.of(server))
                .volumes(volumes);
        return new V1Deployment().apiVersion("apps/v1").kind("Deployment").metadata(namespacedMeta(SERVER))
                .spec(new V1DeploymentSpec().replicas(options.replicas()).selector(selector)
                        // a webhook server must never drop to zero ready replicas during a rollout
                        .strategy(new V1DeploymentStrategy().type("RollingUpdate").rollingUpdate(
                                new V1RollingUpdateDeployment().maxUnavailable(new IntOrString(0))
                                        .maxSurge(new IntOrString(1))))
                        .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels)).spec(pod)));
    }

    /** key[=value][:effect]: Equal with a value, Exists without; no effect tolerates every effect. */
    private List<V1Toleration> tolerations() {
        return options.tolerations().stream().map(taint -> {
            int colon = taint.indexOf(':');
            String keyValue = colon < 0 ? taint : taint.substring(0, colon);
            int eq = keyValue.indexOf('=');
            var toleration = new V1Toleration().key(eq < 0 ? keyValue : keyValue.substring(0, eq))
                    .operator(eq < 0 ? "Exists" : "Equal").effect(colon < 0 ? null : taint.substring(colon + 1));
            return eq < 0 ? toleration : toleration.value(keyValue.substring(eq + 1));
        }).toList();
    }

    private V1PodDisruptionBudget disruptionBudget() {
        return new V1PodDisruptionBudget().apiVersion("policy/v1").kind("PodDisruptionBudget").metadata(namespacedMeta(SERVER))
                .spec(new V1PodDisruptionBudgetSpec().maxUnavailable(new IntOrString(1))
                        .selector(new V1LabelSelector().matchLabels(serverSelector())));
    }

    /**
     * --max-replicas: more replicas under CPU load (a replica's request is 100m), never fewer than --replicas. Replicas
     * share nothing but the leader Lease, so scaling out is how a large cluster grows.
     */
    private V2HorizontalPodAutoscaler autoscaler() {
        return new V2HorizontalPodAutoscaler().apiVersion("autoscaling/v2").kind("HorizontalPodAutoscaler")
                .metadata(namespacedMeta(SERVER)).spec(new V2HorizontalPodAutoscalerSpec()
                        .scaleTargetRef(new V2CrossVersionObjectReference().apiVersion("apps/v1").kind("Deployment")
                                .name(SERVER))
                        .minReplicas(options.replicas()).maxReplicas(options.maxReplicas())
                        .metrics(List.of(new V2MetricSpec().type("Resource").resource(new V2ResourceMetricSource()
                                .name("cpu").target(new V2MetricTarget().type("Utilization")
                                        .averageUtilization(AUTOSCALE_CPU_PERCENT))))));
    }

    private V1PodSpec certgenPod() {
        V1Container certgen = new V1Container().name("certgen").image(options.imageReference())
                .imagePullPolicy(options.imagePullPolicy())
                .command(List.of("java", "-jar", CERTGEN_JAR))
                .args(List.of("--namespace=" + ns, "--secret=" + TLS_SECRET, "--service=" + SERVICE,
                        "--mutating-webhook=" + MUTATING_CONFIG, "--validating-webhook=" + VALIDATING_CONFIG))
                .env(List.of(new V1EnvVar().name("JAVA_TOOL_OPTIONS").value(CERTGEN_JVM_OPTIONS)))
                .resources(resources("50m", "128Mi", "500m", CERTGEN_MEMORY_LIMIT))
                .securityContext(restrictedContainer())
                .volumeMounts(List.of(tmpMount()));
        return new V1PodSpec().serviceAccountName(CERTGEN).restartPolicy("OnFailure").securityContext(restrictedPod())
                .containers(List.of(certgen)).volumes(List.of(tmpVolume()));
    }

    private V1JobSpec certgenJobSpec() {
        var labels = Map.of("app.kubernetes.io/name", NAME, "app.kubernetes.io/component", "certgen");
        return new V1JobSpec().backoffLimit(6)
                .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(labels)).spec(certgenPod()));
    }

    /**
     * The first run. A Job's pod template cannot change, so the name carries a digest of the spec: an upgrade that
     * changes it (a new image) applies a new Job instead of failing, and finished Jobs are removed after a while.
     */
    private V1Job certgenJob() {
        V1JobSpec spec = certgenJobSpec().ttlSecondsAfterFinished(600);
        return new V1Job().apiVersion("batch/v1").kind("Job").metadata(namespacedMeta(CERTGEN + "-" + digest(spec)))
                .spec(spec);
    }

    /** The first 10 hex digits of the SHA-256 of a model's canonical (sorted) form. */
    private static String digest(Object model) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256")
                    .digest(BundleYaml.canonical(model).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** Daily check; certgen renews only within its renew-before window, so most runs write nothing. */
    private V1CronJob certgenCronJob() {
        return new V1CronJob().apiVersion("batch/v1").kind("CronJob").metadata(namespacedMeta(CERTGEN))
                .spec(new V1CronJobSpec().schedule("17 3 * * *").concurrencyPolicy("Forbid")
                        .successfulJobsHistoryLimit(1).failedJobsHistoryLimit(3)
                        .jobTemplate(new V1JobTemplateSpec().spec(certgenJobSpec())));
    }

    // ---- webhooks ----

    private V1ObjectMeta webhookConfigurationMeta(String name) {
        V1ObjectMeta meta = meta(name);
        if (options.certManager()) {
            meta.putAnnotationsItem("cert-manager.io/inject-ca-from", ns + "/" + TLS_SECRET);
        }
        return meta;
    }

    private AdmissionregistrationV1WebhookClientConfig clientConfig(String path) {
        var config = new AdmissionregistrationV1WebhookClientConfig();
        if (options.inCluster()) {
            return config.service(new AdmissionregistrationV1ServiceReference().name(SERVICE).namespace(ns).path(path).port(443));
        }
        return config.url(options.webhookUrl() + path).caBundle(options.caBundle());
    }

    /**
     * Skips namespaces labelled as ignored (with compat also by KubeMod's label, so that a migrated cluster keeps
     * its exemptions), and kube-system, whose objects must never wait for us.
     */
    private V1LabelSelector namespaceSelector() {
        var requirements = new ArrayList<V1LabelSelectorRequirement>();
        requirements.add(notTrue(IGNORE_LABEL));
        if (options.kubemodCompat()) {
            requirements.add(notTrue(KUBEMOD_IGNORE_LABEL));
        }
        // --ignore-namespaces: the leader's narrowing keeps this requirement (it replaces only its own In one)
        var ignored = new ArrayList<>(notKubeSystem().getValues());
        ignored.addAll(options.ignoreNamespaces());
        requirements.add(notKubeSystem().values(ignored));
        return new V1LabelSelector().matchExpressions(requirements);
    }

    private static V1LabelSelectorRequirement notTrue(String label) {
        return new V1LabelSelectorRequirement().key(label).operator("NotIn").values(List.of("true"));
    }

    private static V1LabelSelectorRequirement notKubeSystem() {
        return new V1LabelSelectorRequirement().key("kubernetes.io/metadata.name").operator("NotIn")
                .values(List.of("kube-system"));
    }

    /**
     * Skips the bundle's own cluster-scoped objects by name (its namespaced ones live in the ignored system
     * namespace), so that deleting the bundle never waits for (or fails on) the server it removes. A condition of the
     * webhook, which only administrators may edit: no object label exempts anything, as its author could set it. The
     * Helm chart's uninstall hook's RBAC is skipped too (in the bundle as well, so that chart and bundle stay one
     * model): a chart whose server is down must still uninstall, and the hook is what removes the webhooks.
     */
    private static List<V1MatchCondition> notTheBundle(List<Object> bundle) {
        var byResource = new TreeMap<String, List<String>>();
        for (Object object : bundle) {
            String resource = null;
            String name = null;
            if (object instanceof V1ClusterRole role) {
                resource = RBAC_GROUP + "/clusterroles";
                name = role.getMetadata().getName();
            } else if (object instanceof V1ClusterRoleBinding binding) {
                resource = RBAC_GROUP + "/clusterrolebindings";
                name = binding.getMetadata().getName();
            } else if (object instanceof Map<?, ?> crd && "CustomResourceDefinition".equals(crd.get("kind"))
                    && crd.get("metadata") instanceof Map<?, ?> metadata) {
                resource = "apiextensions.k8s.io/customresourcedefinitions";
                name = (String) metadata.get("name");
            }
            if (resource != null) {
                byResource.computeIfAbsent(resource, r -> new ArrayList<>()).add("'" + name + "'");
            }
        }
        for (String resource : List.of("clusterroles", "clusterrolebindings")) {
            byResource.get(RBAC_GROUP + "/" + resource).add("'" + UNINSTALL_HOOK + "'");
        }
        var alternatives = new ArrayList<String>();
        byResource.forEach((resource, names) -> {
            int slash = resource.indexOf('/');
            alternatives.add("(request.resource.group == '" + resource.substring(0, slash)
                    + "' && request.resource.resource == '" + resource.substring(slash + 1) + "' && request.name in ["
                    + String.join(", ", names) + "])");
        });
        return List.of(new V1MatchCondition().name("not-remold-itself")
                .expression("!(" + String.join(" || ", alternatives) + ")"));
    }

    private List<V1RuleWithOperations> targetRules() {
        return List.of(new V1RuleWithOperations().apiGroups(List.of("*")).apiVersions(List.of("*"))
                .operations(options.operations()).resources(options.resources()).scope("*"));
    }

    /** kinitiras's three policy kinds, created or updated. */
    private static List<V1RuleWithOperations> kinitirasPolicies() {
        return List.of(new V1RuleWithOperations().apiGroups(List.of(KinitirasCrds.GROUP))
                .apiVersions(List.of(KinitirasCrds.VERSION)).operations(List.of("CREATE", "UPDATE"))
                .resources(KinitirasCrds.PLURALS).scope("*"));
    }

    private V1MutatingWebhookConfiguration mutatingConfiguration(List<V1MatchCondition> notTheBundle) {
        var patch = new V1MutatingWebhook().name("mutate.remold.io").clientConfig(clientConfig("/mutate"))
                .rules(targetRules()).namespaceSelector(namespaceSelector()).matchConditions(notTheBundle)
                .failurePolicy(options.mutateFailurePolicy()).matchPolicy("Equivalent").reinvocationPolicy("IfNeeded")
                .sideEffects("None").timeoutSeconds(options.timeoutSeconds()).admissionReviewVersions(List.of("v1"));
        var webhooks = new ArrayList<>(List.of(patch));
        if (options.nodeAnnotations()) {
            webhooks.add(bindingWebhook());
        }
        if (options.kinitirasCompat()) {
            // kinitiras's policy webhook: each template's renderedCue is written into the policy before it is stored
            // (again if a later webhook changed the policy), in every namespace.
            webhooks.add(new V1MutatingWebhook().name("renderedcue.remold.io").clientConfig(clientConfig("/mutate-rule"))
                    .rules(kinitirasPolicies()).failurePolicy("Fail").matchPolicy("Equivalent")
                    .reinvocationPolicy("IfNeeded").sideEffects("None").timeoutSeconds(options.timeoutSeconds())
                    .admissionReviewVersions(List.of("v1")));
        }
        return new V1MutatingWebhookConfiguration().apiVersion("admissionregistration.k8s.io/v1")
                .kind("MutatingWebhookConfiguration").metadata(webhookConfigurationMeta(MUTATING_CONFIG))
                .webhooks(webhooks);
    }

    /** Node references: the server records the node of each bound pod; it writes (a side effect) except on dry runs. */
    private V1MutatingWebhook bindingWebhook() {
        return new V1MutatingWebhook().name("binding.remold.io").clientConfig(clientConfig("/mutate"))
                .rules(List.of(new V1RuleWithOperations().apiGroups(List.of("")).apiVersions(List.of("v1"))
                        .operations(List.of("CREATE")).resources(List.of("pods/binding")).scope("Namespaced")))
                .namespaceSelector(namespaceSelector()).failurePolicy("Ignore").matchPolicy("Equivalent")
                .reinvocationPolicy("Never").sideEffects("NoneOnDryRun").timeoutSeconds(options.timeoutSeconds())
                .admissionReviewVersions(List.of("v1"));
    }

    /**
     * The Reject webhook is installed with the whole dragnet; the server's leader narrows it to the namespaces that
     * hold Reject rules (docs/install.md). Re-applying the bundle widens it again until the leader's next check:
     * for a moment more is sent to the servers than needed, never less.
     */
    private V1ValidatingWebhookConfiguration validatingConfiguration(List<V1MatchCondition> notTheBundle) {
        var reject = new V1ValidatingWebhook().name("validate.remold.io").clientConfig(clientConfig("/validate"))
                .rules(targetRules()).namespaceSelector(namespaceSelector()).matchConditions(notTheBundle)
                .failurePolicy(options.validateFailurePolicy()).matchPolicy("Equivalent").sideEffects("None")
                .timeoutSeconds(options.timeoutSeconds()).admissionReviewVersions(List.of("v1"));
        // ModRules are validated in every namespace but kube-system: cluster-wide rules live in the (ignored) system namespace.
        var modrules = new V1ValidatingWebhook().name("modrule.remold.io").clientConfig(clientConfig("/validate-modrule"))
                .rules(List.of(new V1RuleWithOperations().apiGroups(modruleGroups()).apiVersions(List.of("v1beta1"))
                        .operations(List.of("CREATE", "UPDATE")).resources(List.of("modrules")).scope("Namespaced")))
                .namespaceSelector(new V1LabelSelector().matchExpressions(List.of(notKubeSystem())))
                .failurePolicy("Fail").matchPolicy("Equivalent").sideEffects("None")
                .timeoutSeconds(options.timeoutSeconds()).admissionReviewVersions(List.of("v1"));
        var webhooks = new ArrayList<>(List.of(reject, modrules));
        if (options.gatekeeperCompat()) {
            // Gatekeeper's mutators are cluster-scoped: refused with Gatekeeper's reason before they are stored.
            webhooks.add(new V1ValidatingWebhook().name("mutator.remold.io").clientConfig(clientConfig("/validate-modrule"))
                    .rules(List.of(new V1RuleWithOperations().apiGroups(List.of(GATEKEEPER_GROUP))
                            .apiVersions(List.of("v1", "v1beta1", "v1alpha1")).operations(List.of("CREATE", "UPDATE"))
                            .resources(GATEKEEPER_MUTATORS).scope("Cluster")))
                    .failurePolicy("Fail").matchPolicy("Equivalent").sideEffects("None")
                    .timeoutSeconds(options.timeoutSeconds()).admissionReviewVersions(List.of("v1")));
        }
        if (options.jsAdmissionsCompat()) {
            // A broken script is refused with the field and line before it is stored.
            webhooks.add(new V1ValidatingWebhook().name("jsadmission.remold.io").clientConfig(clientConfig("/validate-modrule"))
                    .rules(List.of(new V1RuleWithOperations().apiGroups(List.of(SCRIPT_GROUP)).apiVersions(List.of("v1"))
                            .operations(List.of("CREATE", "UPDATE")).resources(SCRIPT_RULES).scope("*")))
                    .failurePolicy("Fail").matchPolicy("Equivalent").sideEffects("None")
                    .timeoutSeconds(options.timeoutSeconds()).admissionReviewVersions(List.of("v1")));
        }
        if (options.kinitirasCompat()) {
            // A broken policy (CUE that does not parse, an unknown template type) is refused with the field and
            // CUE's message before it is stored, in every namespace (a policy is no workload: nothing waits for it).
            webhooks.add(new V1ValidatingWebhook().name("kinitiras.remold.io").clientConfig(clientConfig("/validate-modrule"))
                    .rules(kinitirasPolicies())
                    .failurePolicy("Fail").matchPolicy("Equivalent").sideEffects("None")
                    .timeoutSeconds(options.timeoutSeconds()).admissionReviewVersions(List.of("v1")));
        }
        // Providers are cluster-scoped: a broken one (an http:// URL, a bad caBundle) is refused with the field.
        webhooks.add(new V1ValidatingWebhook().name("provider.remold.io").clientConfig(clientConfig("/validate-modrule"))
                .rules(List.of(new V1RuleWithOperations().apiGroups(List.of(REMOLD_GROUP)).apiVersions(List.of("v1beta1"))
                        .operations(List.of("CREATE", "UPDATE")).resources(List.of("providers")).scope("Cluster")))
                .failurePolicy("Fail").matchPolicy("Equivalent").sideEffects("None")
                .timeoutSeconds(options.timeoutSeconds()).admissionReviewVersions(List.of("v1")));
        return new V1ValidatingWebhookConfiguration().apiVersion("admissionregistration.k8s.io/v1")
                .kind("ValidatingWebhookConfiguration").metadata(webhookConfigurationMeta(VALIDATING_CONFIG))
                .webhooks(webhooks);
    }
}

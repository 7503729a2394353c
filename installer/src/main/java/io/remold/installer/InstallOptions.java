package io.remold.installer;

import io.kubernetes.client.custom.Quantity;
import io.remold.api.AllowedUrls;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The installer's options, validated.
 *
 * @param webhookUrl base URL of a server outside the cluster, without trailing slash, or null for the in-cluster Service
 * @param caBundle   PEM bytes of the CA that signed the out-of-cluster server's certificate, or null
 * @param imagePullPolicy the containers' pull policy, or null for Kubernetes' default (IfNotPresent for a tag)
 * @param webhookIngressCidrs where the NetworkPolicy admits connections to the webhook port from (the API server)
 * @param clientCa   PEM bytes of the CA of the API server's client certificate (mutual TLS), or null
 * @param tenantScripts namespaces whose rules may run JavaScript ({@code *}: all), empty: the server's default (none)
 * @param nodeAnnotations whether the server may patch pods to write the node-name annotation
 * @param kinitirasCompat whether kinitiras's policy CRDs are installed, read and validated
 * @param reports    whether OpenReports' CRDs are installed and the server writes reports into them
 * @param existingApply resources ({@code [group/]plural}) the server may write for rules with {@code existing: Apply}
 * @param serviceMonitor whether a ServiceMonitor (and a Service of the admin port) is installed
 * @param prometheusRule whether a PrometheusRule with Remold's alerts is installed
 * @param dashboard    whether the Grafana dashboard is installed as a labelled ConfigMap
 * @param priorityClass the server pods' PriorityClass, or null for none
 * @param maxReplicas  0, or the most replicas a HorizontalPodAutoscaler scales the server to (from {@code replicas})
 * @param ignoreNamespaces namespaces the Patch and Reject webhooks skip, besides kube-system and labelled ones
 * @param nodeSelector the server pods' node selector (label to value)
 * @param tolerations  taints the server pods tolerate, each {@code key[=value][:effect]}
 * @param serverCpu    the server container's CPU request
 * @param serverCpuLimit the server container's CPU limit
 * @param serverMemory the server container's memory request and limit, or null for the bundle's own (more with CUE)
 * @param drainSeconds how long a terminating server keeps answering (the server's drain-seconds)
 * @param logLevel     the server's log-level, or null for its default (info)
 */
record InstallOptions(
        String namespace,
        String image,
        String tag,
        String imagePullPolicy,
        int replicas,
        List<String> resources,
        List<String> operations,
        String mutateFailurePolicy,
        String validateFailurePolicy,
        int timeoutSeconds,
        String webhookUrl,
        byte[] caBundle,
        boolean kubemodCompat,
        boolean gatekeeperCompat,
        boolean certManager,
        boolean help,
        List<String> allowReferences,
        boolean jsAdmissionsCompat,
        List<String> scriptKinds,
        List<String> webhookIngressCidrs,
        byte[] clientCa,
        List<String> tenantScripts,
        boolean nodeAnnotations,
        boolean kinitirasCompat,
        List<String> allowHttpRef,
        boolean kinitirasCrossNamespaceOverrides,
        boolean kinitirasWebhookLabel,
        boolean reports,
        List<String> existingApply,
        boolean serviceMonitor,
        boolean prometheusRule,
        boolean dashboard,
        String priorityClass,
        int maxReplicas,
        List<String> ignoreNamespaces,
        java.util.Map<String, String> nodeSelector,
        List<String> tolerations,
        String serverCpu,
        String serverCpuLimit,
        String serverMemory,
        int drainSeconds,
        String logLevel) {

    static final String DEFAULT_IMAGE = "ghcr.io/remold/remold";
    static final String DEFAULT_TAG = projectVersion();

    /**
     * KubeMod's dragnet webhook resources, in KubeMod's order, plus the Pod subresources that change what rules
     * inspect: {@code pods/ephemeralcontainers} adds containers to a running Pod, {@code pods/resize} changes its
     * containers' resources (Kubernetes 1.33+). Their requests carry the whole Pod, so rules judge them as they judge a
     * Pod UPDATE. The scale subresources are left out: their object is a Scale, which rules on Deployments do not match.
     */
    static final List<String> DEFAULT_RESOURCES = List.of(
            "namespaces", "nodes", "configmaps", "persistentvolumeclaims", "persistentvolumes", "secrets", "services",
            "daemonsets", "deployments", "replicasets", "statefulsets", "horizontalpodautoscalers", "ingresses", "pods",
            "cronjobs", "jobs", "serviceaccounts", "clusterrolebindings", "clusterroles", "rolebindings", "roles",
            "pods/ephemeralcontainers", "pods/resize");
    /**
     * Where the webhook port admits connections from unless told: anywhere, as the API server's address differs
     * per platform (docs/install.md lists them); the installer says so on standard error.
     */
    static final List<String> OPEN_INGRESS = List.of("0.0.0.0/0", "::/0");
    static final List<String> DEFAULT_OPERATIONS = List.of("CREATE", "UPDATE", "DELETE");
    /** What ModRules' spec.references may read: nothing unless asked for (least privilege). */
    static final List<String> DEFAULT_ALLOW_REFERENCES = List.of();
    /** What script rules receive events of with --js-admissions-compat, unless --script-kinds says otherwise. */
    static final List<String> DEFAULT_SCRIPT_KINDS = List.of("pods");

    static final String USAGE = """
            Usage: java -jar remold-installer.jar [options] > bundle.yaml
            Writes the Kubernetes manifests that install Remold: kubectl apply -f bundle.yaml

              --namespace NAME                 system namespace (default remold-system)
              --image IMAGE                    server and certgen image (default %s)
              --tag TAG                        image tag (default %s)
              --image-pull-policy POLICY       Always, IfNotPresent or Never (default: Kubernetes' own)
              --replicas N                     server replicas (default 2)
              --resources R1,R2,...            resources the webhooks intercept (default: KubeMod's 21 resources
                                               and pods/ephemeralcontainers, pods/resize)
              --operations OP1,OP2,...         CREATE, UPDATE, DELETE, CONNECT or * (default CREATE,UPDATE,DELETE)
              --mutate-failure-policy POLICY   Ignore or Fail, for Patch rules (default Ignore)
              --validate-failure-policy POLICY Ignore or Fail, for Reject rules (default Fail)
              --timeout-seconds N              webhook timeout, 1 to 30 (default 5)
              --webhook-url URL                point the webhooks at a server outside the cluster (https://host:port);
                                               omits the Deployment, Service, disruption budget and certgen
              --ca-file FILE                   PEM CA bundle of that server (with --webhook-url)
              --kubemod-compat                 also install the api.kubemod.io CRD and validate its ModRules
              --gatekeeper-compat              also install Gatekeeper's mutator CRDs (mutations.gatekeeper.sh:
                                               Assign, AssignMetadata, ModifySet, AssignImage), let the server
                                               read them and validate them
              --allow-references R1,R2,...     resources ModRules' spec.references may read, [group/]plural
                                               (default none; e.g. configmaps,secrets,apps/deployments):
                                               the server gets get/list/watch on exactly these,
                                               cluster-wide
              --existing-apply-resources R1,R2,...
                                               resources rules with existing: Apply may change where they
                                               exist, [group/]plural (default none; e.g. apps/deployments):
                                               the server gets get/list/patch on exactly these,
                                               cluster-wide (list: the writes follow the rule's impact
                                               scan; never pods: a running Pod is not changed)
              --js-admissions-compat           also install js-admissions-controller's CRDs (momiji.com:
                                               JsAdmission, ClusterJsAdmission), let the server read them
                                               and validate them
              --script-kinds R1,R2,...         resources script rules receive create/update/delete events of,
                                               [group/]plural (default pods with --js-admissions-compat,
                                               else none): the server gets get/list/watch on exactly these,
                                               cluster-wide
              --kinitiras-compat               also install kinitiras's policy CRDs (policy.kcloudlabs.io:
                                               OverridePolicy, ClusterOverridePolicy, ClusterValidatePolicy),
                                               let the server read them and validate them; raises the server's
                                               memory to %s for the CUE workers
              --allow-http-ref P1,P2,...       URL prefixes (http or https, host, optional port and path)
                                               kinitiras http valueRefs may call (default none: a policy with
                                               one is not in force)
              --kinitiras-cross-namespace-overrides
                                               kinitiras OverridePolicies change the objects they select in
                                               every namespace, as kinitiras's (unsafe with tenants)
              --kinitiras-webhook-label        kinitiras policies see only objects labelled
                                               kinitiras.kcloudlabs.io/webhook: enabled (unsafe with tenants)
              --cert-manager                   let cert-manager issue the serving certificate instead of certgen
              --webhook-ingress-cidr C1,C2,... where the NetworkPolicy admits connections to the webhook port
                                               from: the API server's addresses (default anywhere; values per
                                               platform in docs/install.md)
              --client-ca-file FILE            PEM CA of the API server's client certificate: the server then
                                               requires one (mutual TLS; docs/install.md shows the API server's
                                               AdmissionConfiguration)
              --tenant-scripts NS1,NS2,...     namespaces whose rules may run JavaScript, or * for all (default
                                               none: only the system namespace and cluster-scoped script rules)
              --node-annotations               let the server patch pods to annotate them with their node
                                               (ref.remold.io/inject-node-ref; grants pods: get, patch)
              --reports                        also install OpenReports' CRDs (openreports.io: Report,
                                               ClusterReport) and let the server write what Shadow and
                                               Warn rules and impact scans find into them (docs/reports.md)
              --service-monitor                add a ServiceMonitor (Prometheus Operator, monitoring.coreos.com/v1)
                                               and a Service of the admin port for it to scrape
              --prometheus-rule                add a PrometheusRule with the alerts of docs/operations.md
              --dashboard                      add the Grafana dashboard as a ConfigMap labelled
                                               grafana_dashboard: "1"
              --helm-chart DIR                 write the Helm chart (charts/remold) into DIR instead of the
                                               bundle: one value per option above, defaulting to the options
                                               given with it
              --priority-class NAME            PriorityClass of the server pods (default none)
              --max-replicas N                 scale the server out under CPU load, up to N replicas, with a
                                               HorizontalPodAutoscaler (default: none, --replicas fixed);
                                               replicas share nothing but the leader Lease
              --ignore-namespaces NS1,NS2,...  namespaces the Patch and Reject webhooks skip, besides kube-system
                                               and those labelled admission.remold.io/ignore=true (default none)
              --node-selector L1,L2,...        node labels (key=value) the server pods must run on (default any
                                               node)
              --tolerations T1,T2,...          taints the server pods tolerate, each key[=value][:effect]
                                               (effect NoSchedule, PreferNoSchedule or NoExecute; default none)
              --server-cpu Q                   CPU request of a server container (default %s)
              --server-cpu-limit Q             CPU limit of a server container (default %s)
              --server-memory Q                memory request and limit of a server container (default %s,
                                               %s with --kinitiras-compat)
              --drain-seconds N                how long a terminating server keeps answering, 0 to 20
                                               (default %s)
              --log-level LEVEL                the server's least severe own log records: error, warn, info
                                               or debug (default info)
              --help                           this text
            """.formatted(DEFAULT_IMAGE, DEFAULT_TAG, Bundle.SERVER_MEMORY_WITH_CUE, Bundle.SERVER_CPU,
            Bundle.SERVER_CPU_LIMIT, Bundle.SERVER_MEMORY, Bundle.SERVER_MEMORY_WITH_CUE, Bundle.DRAIN_SECONDS);

    // The options' rules, which values.schema.json states too (ValuesSchema): whole-match patterns, closed sets, bounds.
    static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    static final Pattern SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    /** A label key ([prefix/]name) and value (may be empty), as Kubernetes accepts them. */
    static final Pattern LABEL_KEY = Pattern.compile("([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?"
            + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
    static final Pattern LABEL_VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");
    private static final Pattern LABEL = Pattern.compile(LABEL_KEY.pattern() + "=" + LABEL_VALUE.pattern());
    /** key[=value][:effect], as kubectl taint writes a taint. */
    static final Pattern TOLERATION = Pattern.compile(LABEL_KEY.pattern() + "(=" + LABEL_VALUE.pattern() + ")?"
            + "(:(NoSchedule|PreferNoSchedule|NoExecute))?");
    /** Quantities as Kubernetes writes them for CPU (cores or millicores) and memory (bytes, decimal or binary). */
    static final Pattern CPU = Pattern.compile("[1-9][0-9]{0,5}m|[0-9]{1,3}(\\.[0-9]{1,3})?");
    static final Pattern MEMORY = Pattern.compile("[1-9][0-9]{0,6}(Ki|Mi|Gi|k|M|G)");
    static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
    static final Pattern IMAGE = Pattern.compile("[a-z0-9][a-z0-9._/:-]*[a-z0-9]");
    static final Pattern REFERENCED = Pattern.compile("([a-z0-9][a-z0-9.-]*/)?[a-z0-9][a-z0-9-]*");
    /** What rules with existing: Apply never change: a running Pod is not changed. */
    static final String NEVER_APPLIED = "pods";
    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
            + "(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}/(3[0-2]|[12]?[0-9])");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:]*:[0-9a-fA-F:]*/(12[0-8]|1[01][0-9]|[1-9]?[0-9])");
    static final Pattern CIDR = Pattern.compile(IPV4.pattern() + "|" + IPV6.pattern());
    /** A namespace whose rules may run JavaScript, or * for all. */
    static final Pattern TENANT = Pattern.compile("\\*|" + DNS_LABEL.pattern());
    static final Pattern RESOURCE = Pattern.compile("\\*|[a-z0-9][a-z0-9.-]*(/[a-z0-9*]+)?|\\*/[a-z0-9*]+");
    /** What a CA file must hold. */
    static final String PEM_CERTIFICATE = "-----BEGIN CERTIFICATE-----";
    static final List<String> OPERATIONS = List.of("CREATE", "UPDATE", "DELETE", "CONNECT", "*");
    static final List<String> FAILURE_POLICIES = List.of("Ignore", "Fail");
    static final List<String> PULL_POLICIES = List.of("Always", "IfNotPresent", "Never");
    /** The server's log-level values. */
    static final List<String> LOG_LEVELS = List.of("error", "warn", "info", "debug");

    /** The bounds of a whole-number option. */
    record Range(int min, int max) {
    }

    static final Range REPLICAS = new Range(1, 100);
    static final Range TIMEOUT_SECONDS = new Range(1, 30);
    static final Range MAX_REPLICAS = new Range(1, 100);
    static final Range DRAIN_SECONDS = new Range(0, 20);

    /** Why --webhook-url refuses options of the in-cluster server (the chart refuses their values alike). */
    static final String URL_WITH_CERT_MANAGER = "--webhook-url and --cert-manager exclude each other: cert-manager "
            + "issues the certificate of the in-cluster server only";
    static final String URL_WITH_IN_CLUSTER_OPTIONS = "--client-ca-file, --webhook-ingress-cidr and --tenant-scripts "
            + "configure the in-cluster server: with --webhook-url, give your server its client-ca and tenant-scripts "
            + "options and protect its port yourself";
    static final String URL_WITH_SERVICE_MONITOR = "--service-monitor scrapes the in-cluster server: with "
            + "--webhook-url, scrape your server's admin port yourself";

    /** Which parts of the observability pack are installed. */
    Monitoring monitoring() {
        return new Monitoring(serviceMonitor, prometheusRule, dashboard);
    }

    static InstallOptions defaults() {
        return new InstallOptions("remold-system", DEFAULT_IMAGE, DEFAULT_TAG, null, 2, DEFAULT_RESOURCES, DEFAULT_OPERATIONS,
                "Ignore", "Fail", 5, null, null, false, false, false, false, DEFAULT_ALLOW_REFERENCES, false, List.of(),
                OPEN_INGRESS, null, List.of(), false, false, List.of(), false, false, false, List.of(), false, false, false,
                null, 0, List.of(), java.util.Map.of(), List.of(), Bundle.SERVER_CPU, Bundle.SERVER_CPU_LIMIT, null,
                Bundle.DRAIN_SECONDS, null);
    }

    boolean inCluster() {
        return webhookUrl == null;
    }

    String imageReference() {
        return image + ":" + tag;
    }

    static InstallOptions parse(List<String> args) throws UsageException {
        InstallOptions o = defaults();
        String namespace = o.namespace, image = o.image, tag = o.tag, pullPolicy = null, mutate = o.mutateFailurePolicy,
                validate = o.validateFailurePolicy, url = null, caFile = null, clientCaFile = null;
        int replicas = o.replicas, timeout = o.timeoutSeconds, maxReplicas = 0, drainSeconds = o.drainSeconds;
        String priorityClass = null, serverCpu = o.serverCpu, serverCpuLimit = o.serverCpuLimit, serverMemory = null,
                logLevel = null;
        List<String> ignoreNamespaces = o.ignoreNamespaces;
        java.util.Map<String, String> nodeSelector = o.nodeSelector;
        List<String> tolerations = o.tolerations;
        List<String> resources = o.resources, operations = o.operations, allowReferences = o.allowReferences,
                scriptKinds = null, ingress = null, tenantScripts = o.tenantScripts, allowHttpRef = o.allowHttpRef,
                existingApply = o.existingApply;
        boolean compat = false, gatekeeper = false, jsAdmissions = false, certManager = false, help = false,
                nodeAnnotations = false, kinitiras = false, crossNamespaceOverrides = false, webhookLabel = false,
                reports = false,
                        serviceMonitor = false, prometheusRule = false, dashboard = false;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg;
            String inline = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                inline = arg.substring(eq + 1);
            }
            switch (name) {
                case "--help", "-h" -> help = true;
                case "--kubemod-compat" -> compat = true;
                case "--gatekeeper-compat" -> gatekeeper = true;
                case "--js-admissions-compat" -> jsAdmissions = true;
                case "--kinitiras-compat" -> kinitiras = true;
                case "--cert-manager" -> certManager = true;
                case "--node-annotations" -> nodeAnnotations = true;
                case "--kinitiras-cross-namespace-overrides" -> crossNamespaceOverrides = true;
                case "--kinitiras-webhook-label" -> webhookLabel = true;
                case "--reports" -> reports = true;
                case "--service-monitor" -> serviceMonitor = true;
                case "--prometheus-rule" -> prometheusRule = true;
                case "--dashboard" -> dashboard = true;
                case "--namespace", "--image", "--tag", "--image-pull-policy", "--replicas", "--resources", "--operations",
                     "--mutate-failure-policy", "--validate-failure-policy", "--timeout-seconds", "--webhook-url",
                     "--ca-file", "--allow-references", "--script-kinds", "--webhook-ingress-cidr",
                     "--client-ca-file", "--tenant-scripts", "--allow-http-ref", "--existing-apply-resources",
                     "--priority-class", "--max-replicas", "--ignore-namespaces", "--node-selector", "--tolerations",
                     "--server-cpu", "--server-cpu-limit", "--server-memory", "--drain-seconds", "--log-level" -> {
                    String value = inline;
                    if (value == null) {
                        if (i + 1 >= args.size()) {
                            throw new UsageException("option " + name + " needs a value");
                        }
                        value = args.get(++i);
                    }
                    switch (name) {
                        case "--namespace" -> namespace = matching(name, value, DNS_LABEL, "a DNS label");
                        case "--image" -> image = matching(name, value, IMAGE, "an image name without tag");
                        case "--tag" -> tag = matching(name, value, TAG, "an image tag");
                        case "--image-pull-policy" -> pullPolicy = oneOf(name, value, PULL_POLICIES);
                        case "--replicas" -> replicas = integer(name, value, REPLICAS);
                        case "--resources" -> resources = list(name, value, r -> RESOURCE.matcher(r).matches(),
                                "resource names such as pods or deployments");
                        case "--operations" -> operations = list(name, value, OPERATIONS::contains,
                                "one or more of " + String.join(", ", OPERATIONS));
                        case "--mutate-failure-policy" -> mutate = oneOf(name, value, FAILURE_POLICIES);
                        case "--validate-failure-policy" -> validate = oneOf(name, value, FAILURE_POLICIES);
                        case "--timeout-seconds" -> timeout = integer(name, value, TIMEOUT_SECONDS);
                        case "--webhook-url" -> url = webhookUrl(value);
                        case "--ca-file" -> caFile = value;
                        case "--allow-references" -> allowReferences = "none".equals(value) ? List.of()
                                : list(name, value, r -> REFERENCED.matcher(r).matches(),
                                "resources as [group/]plural, such as configmaps or apps/deployments");
                        case "--script-kinds" -> scriptKinds = "none".equals(value) ? List.of()
                                : list(name, value, r -> REFERENCED.matcher(r).matches(),
                                "resources as [group/]plural, such as pods or apps/deployments");
                        case "--webhook-ingress-cidr" -> ingress = list(name, value,
                                c -> CIDR.matcher(c).matches(),
                                "CIDRs such as 10.0.0.0/16 or fd00::/64");
                        case "--client-ca-file" -> clientCaFile = value;
                        case "--tenant-scripts" -> tenantScripts = "none".equals(value) ? List.of()
                                : list(name, value, n -> TENANT.matcher(n).matches(),
                                "namespace names, or * for all");
                        case "--allow-http-ref" -> allowHttpRef = httpPrefixes(value);
                        case "--existing-apply-resources" -> existingApply = "none".equals(value) ? List.of()
                                : list(name, value, r -> REFERENCED.matcher(r).matches() && !NEVER_APPLIED.equals(r),
                                "resources as [group/]plural other than pods, such as apps/deployments");
                        case "--priority-class" -> priorityClass = matching(name, value, SUBDOMAIN, "a DNS subdomain");
                        case "--max-replicas" -> maxReplicas = integer(name, value, MAX_REPLICAS);
                        case "--ignore-namespaces" -> ignoreNamespaces = "none".equals(value) ? List.of()
                                : list(name, value, n -> DNS_LABEL.matcher(n).matches(), "namespace names");
                        case "--node-selector" -> nodeSelector = labels(name, value);
                        case "--tolerations" -> tolerations = list(name, value, t -> TOLERATION.matcher(t).matches(),
                                "taints as key[=value][:effect], such as dedicated=remold:NoSchedule");
                        case "--server-cpu" -> serverCpu = matching(name, value, CPU, "a CPU quantity such as 250m or 2");
                        case "--server-cpu-limit" -> serverCpuLimit = matching(name, value, CPU,
                                "a CPU quantity such as 500m or 2");
                        case "--server-memory" -> serverMemory = matching(name, value, MEMORY,
                                "a memory quantity such as 512Mi or 1Gi");
                        case "--drain-seconds" -> drainSeconds = integer(name, value, DRAIN_SECONDS);
                        case "--log-level" -> logLevel = oneOf(name, value, LOG_LEVELS);
                        default -> throw new IllegalStateException(name);
                    }
                }
                default -> throw new UsageException("unknown option " + arg);
            }
        }
        if (caFile != null && url == null) {
            throw new UsageException("--ca-file is only used with --webhook-url");
        }
        if (url != null && certManager) {
            throw new UsageException(URL_WITH_CERT_MANAGER);
        }
        if (url != null && (clientCaFile != null || ingress != null || !tenantScripts.isEmpty())) {
            throw new UsageException(URL_WITH_IN_CLUSTER_OPTIONS);
        }
        if (url != null && serviceMonitor) {
            throw new UsageException(URL_WITH_SERVICE_MONITOR);
        }
        if (maxReplicas != 0 && maxReplicas < replicas) {
            throw new UsageException("option --max-replicas: " + maxReplicas + " is fewer than --replicas " + replicas);
        }
        if (Quantity.fromString(serverCpu).getNumber()
                .compareTo(Quantity.fromString(serverCpuLimit).getNumber()) > 0) {
            throw new UsageException("option --server-cpu: " + serverCpu + " is more than --server-cpu-limit "
                    + serverCpuLimit);
        }
        byte[] caBundle = caFile == null ? null : readCa("--ca-file", caFile);
        byte[] clientCa = clientCaFile == null ? null : readCa("--client-ca-file", clientCaFile);
        return new InstallOptions(namespace, image, tag, pullPolicy, replicas, resources, operations, mutate, validate, timeout,
                url, caBundle, compat, gatekeeper, certManager, help, allowReferences, jsAdmissions,
                scriptKinds != null ? scriptKinds : jsAdmissions ? DEFAULT_SCRIPT_KINDS : List.of(),
                ingress != null ? ingress : OPEN_INGRESS, clientCa, tenantScripts, nodeAnnotations, kinitiras,
                allowHttpRef, crossNamespaceOverrides, webhookLabel, reports, existingApply,
                serviceMonitor, prometheusRule, dashboard, priorityClass, maxReplicas,
                ignoreNamespaces, nodeSelector, tolerations, serverCpu, serverCpuLimit, serverMemory, drainSeconds,
                logLevel);
    }

    /** URL prefixes as the server reads them ({@code none}: none), refused here as the server would refuse them. */
    private static List<String> httpPrefixes(String value) throws UsageException {
        List<String> prefixes = "none".equals(value) ? List.of()
                : java.util.Arrays.stream(value.split(",")).map(String::strip).filter(p -> !p.isEmpty()).toList();
        try {
            AllowedUrls.parse(prefixes);
        } catch (IllegalArgumentException e) {
            throw new UsageException("option " + e.getMessage());
        }
        return prefixes;
    }

    /** True when the webhook port is left open to any address (no --webhook-ingress-cidr). */
    boolean openIngress() {
        return webhookIngressCidrs.equals(OPEN_INGRESS);
    }

    private static String matching(String option, String value, Pattern pattern, String what) throws UsageException {
        if (!pattern.matcher(value).matches()) {
            throw new UsageException("option " + option + ": '" + value + "' is not " + what);
        }
        return value;
    }

    private static int integer(String option, String value, Range range) throws UsageException {
        try {
            int n = Integer.parseInt(value);
            if (n >= range.min() && n <= range.max()) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException("option " + option + ": '" + value + "' is not a whole number from " + range.min()
                + " to " + range.max());
    }

    private static String oneOf(String option, String value, List<String> allowed) throws UsageException {
        if (!allowed.contains(value)) {
            throw new UsageException("option " + option + ": '" + value + "' is not one of " + String.join(", ", allowed));
        }
        return value;
    }

    private static List<String> list(String option, String value, Predicate<String> valid,
                                     String what) throws UsageException {
        var items = new LinkedHashSet<String>();
        String[] parts = value.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            String item = parts[i].strip();
            if (!valid.test(item)) {
                throw new UsageException("option " + option + ": item " + (i + 1) + " '" + item + "' is not valid; "
                        + "expected " + what);
            }
            items.add(item);
        }
        return List.copyOf(new ArrayList<>(items));
    }

    /** {@code key=value,...} node labels, sorted by key. */
    private static java.util.Map<String, String> labels(String option, String value) throws UsageException {
        var labels = new java.util.TreeMap<String, String>();
        for (String item : list(option, value, i -> LABEL.matcher(i).matches(),
                "label=value pairs such as kubernetes.io/os=linux")) {
            int eq = item.indexOf('=');
            labels.put(item.substring(0, eq), item.substring(eq + 1));
        }
        return java.util.Collections.unmodifiableMap(labels);
    }

    private static String webhookUrl(String value) throws UsageException {
        try {
            URI uri = new URI(value);
            if (!"https".equals(uri.getScheme()) || uri.getHost() == null || uri.getRawQuery() != null
                    || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
                throw new UsageException("option --webhook-url: '" + value
                        + "' must be an https URL with a host and no user, query or fragment");
            }
            return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
        } catch (URISyntaxException e) {
            throw new UsageException("option --webhook-url: '" + value + "' is not a URL: " + e.getMessage());
        }
    }

    private static byte[] readCa(String option, String file) throws UsageException {
        byte[] pem;
        try {
            pem = Files.readAllBytes(Path.of(file));
        } catch (IOException e) {
            throw new UsageException("option " + option + ": cannot read " + file + ": " + e);
        }
        if (!new String(pem, StandardCharsets.US_ASCII).contains(PEM_CERTIFICATE)) {
            throw new UsageException("option " + option + ": " + file + " holds no PEM certificate");
        }
        return pem;
    }

    private static String projectVersion() {
        try (InputStream in = InstallOptions.class.getResourceAsStream("version.properties")) {
            var properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

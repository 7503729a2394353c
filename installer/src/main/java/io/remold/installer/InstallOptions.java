package io.remold.installer;

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
        List<String> scriptKinds) {

    static final String DEFAULT_IMAGE = "ghcr.io/remold/remold";
    static final String DEFAULT_TAG = projectVersion();

    /** KubeMod's dragnet webhook resources, in KubeMod's order. */
    static final List<String> DEFAULT_RESOURCES = List.of(
            "namespaces", "nodes", "configmaps", "persistentvolumeclaims", "persistentvolumes", "secrets", "services",
            "daemonsets", "deployments", "replicasets", "statefulsets", "horizontalpodautoscalers", "ingresses", "pods",
            "cronjobs", "jobs", "serviceaccounts", "clusterrolebindings", "clusterroles", "rolebindings", "roles");
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
              --resources R1,R2,...            resources the webhooks intercept (default: KubeMod's 21 resources)
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
              --js-admissions-compat           also install js-admissions-controller's CRDs (momiji.com:
                                               JsAdmission, ClusterJsAdmission), let the server read them
                                               and validate them
              --script-kinds R1,R2,...         resources script rules receive create/update/delete events of,
                                               [group/]plural (default pods with --js-admissions-compat,
                                               else none): the server gets get/list/watch on exactly these,
                                               cluster-wide
              --cert-manager                   let cert-manager issue the serving certificate instead of certgen
              --help                           this text
            """.formatted(DEFAULT_IMAGE, DEFAULT_TAG);

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
    private static final Pattern IMAGE = Pattern.compile("[a-z0-9][a-z0-9._/:-]*[a-z0-9]");
    private static final Pattern REFERENCED = Pattern.compile("([a-z0-9][a-z0-9.-]*/)?[a-z0-9][a-z0-9-]*");
    private static final Pattern RESOURCE = Pattern.compile("\\*|[a-z0-9][a-z0-9.-]*(/[a-z0-9*]+)?|\\*/[a-z0-9*]+");
    private static final List<String> OPERATIONS = List.of("CREATE", "UPDATE", "DELETE", "CONNECT", "*");
    private static final List<String> FAILURE_POLICIES = List.of("Ignore", "Fail");
    private static final List<String> PULL_POLICIES = List.of("Always", "IfNotPresent", "Never");

    static InstallOptions defaults() {
        return new InstallOptions("remold-system", DEFAULT_IMAGE, DEFAULT_TAG, null, 2, DEFAULT_RESOURCES, DEFAULT_OPERATIONS,
                "Ignore", "Fail", 5, null, null, false, false, false, false, DEFAULT_ALLOW_REFERENCES, false, List.of());
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
                validate = o.validateFailurePolicy, url = null, caFile = null;
        int replicas = o.replicas, timeout = o.timeoutSeconds;
        List<String> resources = o.resources, operations = o.operations, allowReferences = o.allowReferences,
                scriptKinds = null;
        boolean compat = false, gatekeeper = false, jsAdmissions = false, certManager = false, help = false;
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
                case "--cert-manager" -> certManager = true;
                case "--namespace", "--image", "--tag", "--image-pull-policy", "--replicas", "--resources", "--operations",
                     "--mutate-failure-policy", "--validate-failure-policy", "--timeout-seconds", "--webhook-url",
                     "--ca-file", "--allow-references", "--script-kinds" -> {
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
                        case "--replicas" -> replicas = integer(name, value, 1, 100);
                        case "--resources" -> resources = list(name, value, r -> RESOURCE.matcher(r).matches(),
                                "resource names such as pods or deployments");
                        case "--operations" -> operations = list(name, value, OPERATIONS::contains,
                                "one or more of " + String.join(", ", OPERATIONS));
                        case "--mutate-failure-policy" -> mutate = oneOf(name, value, FAILURE_POLICIES);
                        case "--validate-failure-policy" -> validate = oneOf(name, value, FAILURE_POLICIES);
                        case "--timeout-seconds" -> timeout = integer(name, value, 1, 30);
                        case "--webhook-url" -> url = webhookUrl(value);
                        case "--ca-file" -> caFile = value;
                        case "--allow-references" -> allowReferences = "none".equals(value) ? List.of()
                                : list(name, value, r -> REFERENCED.matcher(r).matches(),
                                "resources as [group/]plural, such as configmaps or apps/deployments");
                        case "--script-kinds" -> scriptKinds = "none".equals(value) ? List.of()
                                : list(name, value, r -> REFERENCED.matcher(r).matches(),
                                "resources as [group/]plural, such as pods or apps/deployments");
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
            throw new UsageException("--webhook-url and --cert-manager exclude each other: cert-manager issues "
                    + "the certificate of the in-cluster server only");
        }
        byte[] caBundle = caFile == null ? null : readCa(caFile);
        return new InstallOptions(namespace, image, tag, pullPolicy, replicas, resources, operations, mutate, validate, timeout,
                url, caBundle, compat, gatekeeper, certManager, help, allowReferences, jsAdmissions,
                scriptKinds != null ? scriptKinds : jsAdmissions ? DEFAULT_SCRIPT_KINDS : List.of());
    }

    private static String matching(String option, String value, Pattern pattern, String what) throws UsageException {
        if (!pattern.matcher(value).matches()) {
            throw new UsageException("option " + option + ": '" + value + "' is not " + what);
        }
        return value;
    }

    private static int integer(String option, String value, int min, int max) throws UsageException {
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException("option " + option + ": '" + value + "' is not a whole number from " + min
                + " to " + max);
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

    private static byte[] readCa(String file) throws UsageException {
        byte[] pem;
        try {
            pem = Files.readAllBytes(Path.of(file));
        } catch (IOException e) {
            throw new UsageException("option --ca-file: cannot read " + file + ": " + e);
        }
        if (!new String(pem, StandardCharsets.US_ASCII).contains("-----BEGIN CERTIFICATE-----")) {
            throw new UsageException("option --ca-file: " + file + " holds no PEM certificate");
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

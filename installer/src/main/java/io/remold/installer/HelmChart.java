package io.remold.installer;

import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The Helm chart, made from the bundle's own model: every installer option is a chart value ({@link #VALUES}), and the
 * template is the bundle rendered with placeholder values, where what a switch changes is kept under that switch
 * ({@link GuardedText}). The values' defaults are the options given with --helm-chart.
 */
final class HelmChart {
    /**
     * How an installer option becomes a chart value.
     *
     * @param flag      the installer's option
     * @param component the InstallOptions component it sets
     * @param key       the chart value
     * @param placeholder what the template is rendered with: a switch turns the option on (the base leaves it off),
     *                  a placeholder value stands for the chart value wherever the bundle writes it
     */
    record Value(String flag, String component, String key, Placeholder placeholder) {
    }

    /** How the template stands for a value. */
    sealed interface Placeholder {
    }

    /**
     * Rendered as {@code value}; every occurrence of {@code token} in the bundle becomes {@code expression}. A value
     * that may be empty (caBundle) stands alone on its line, which is written only when the value is set.
     */
    record Stand(Object value, String token, String expression) implements Placeholder {
    }

    /**
     * A boolean, or an option the bundle writes only when set: the base leaves it at {@code off}, the switch sets it
     * to {@code on}; {@code test} is the Go template test; {@code token}, if not null, stands for the value.
     */
    record Switch(Object off, Object on, String test, String token, String expression) implements Placeholder {
    }

    private static Switch flag(String key) {
        return new Switch(false, true, ".Values." + key, null, null);
    }

    private static final String NS = "nssentinel";
    private static final String REFERENCES = "refgrp.sentinel/refplural";
    private static final String SCRIPT_KINDS = "kindgrp.sentinel/kindplural";
    private static final String APPLY_RESOURCES = "applygrp.sentinel/applyplural";
    private static final String CA_BUNDLE = "CABUNDLESENTINEL";

    /** Every installer option but --help, in the order of --help. */
    static final List<Value> VALUES = List.of(
            new Value("--namespace", "namespace", "namespace", new Stand(NS, NS, ".Values.namespace")),
            new Value("--image", "image", "image", new Stand("imgsentinel.example/img", "imgsentinel.example/img",
                    ".Values.image")),
            new Value("--tag", "tag", "tag", new Stand("tagsentinel", "tagsentinel", ".Values.tag")),
            new Value("--image-pull-policy", "imagePullPolicy", "imagePullPolicy",
                    new Switch(null, "PullSentinel", ".Values.imagePullPolicy", "PullSentinel", ".Values.imagePullPolicy")),
            new Value("--replicas", "replicas", "replicas", new Stand(1357, "1357", ".Values.replicas")),
            new Value("--resources", "resources", "resources", new Stand(List.of("ressentinel"), "ressentinel",
                    ".Values.resources")),
            new Value("--operations", "operations", "operations", new Stand(List.of("OPSENTINEL"), "OPSENTINEL",
                    ".Values.operations")),
            new Value("--mutate-failure-policy", "mutateFailurePolicy", "mutateFailurePolicy",
                    new Stand("MutateSentinel", "MutateSentinel", ".Values.mutateFailurePolicy")),
            new Value("--validate-failure-policy", "validateFailurePolicy", "validateFailurePolicy",
                    new Stand("ValidateSentinel", "ValidateSentinel", ".Values.validateFailurePolicy")),
            new Value("--timeout-seconds", "timeoutSeconds", "timeoutSeconds", new Stand(917, "917",
                    ".Values.timeoutSeconds")),
            new Value("--webhook-url", "webhookUrl", "webhookUrl", new Switch(null, "https://urlsentinel.example",
                    ".Values.webhookUrl", "https://urlsentinel.example", "trimSuffix \"/\" .Values.webhookUrl")),
            // with --webhook-url only; a line of its own, written when the value is set
            new Value("--ca-file", "caBundle", "caBundle", new Stand(CA_BUNDLE.getBytes(StandardCharsets.US_ASCII),
                    Base64.getEncoder().encodeToString(CA_BUNDLE.getBytes(StandardCharsets.US_ASCII)),
                    ".Values.caBundle | b64enc")),
            new Value("--kubemod-compat", "kubemodCompat", "kubemodCompat", flag("kubemodCompat")),
            new Value("--gatekeeper-compat", "gatekeeperCompat", "gatekeeperCompat", flag("gatekeeperCompat")),
            new Value("--allow-references", "allowReferences", "allowReferences", new Switch(List.of(),
                    List.of(REFERENCES), ".Values.allowReferences", REFERENCES, "join \",\" .Values.allowReferences")),
            new Value("--existing-apply-resources", "existingApply", "existingApplyResources", new Switch(List.of(),
                    List.of(APPLY_RESOURCES), ".Values.existingApplyResources", APPLY_RESOURCES,
                    "join \",\" .Values.existingApplyResources")),
            new Value("--js-admissions-compat", "jsAdmissionsCompat", "jsAdmissionsCompat", flag("jsAdmissionsCompat")),
            new Value("--script-kinds", "scriptKinds", "scriptKinds", new Switch(List.of(), List.of(SCRIPT_KINDS),
                    "(include \"remold.scriptKinds\" . | fromJsonArray)", null, null)),
            new Value("--kinitiras-compat", "kinitirasCompat", "kinitirasCompat", flag("kinitirasCompat")),
            new Value("--allow-http-ref", "allowHttpRef", "allowHttpRef", new Switch(List.of(), List.of("httpsentinel"),
                    ".Values.allowHttpRef", "httpsentinel", "join \",\" .Values.allowHttpRef")),
            new Value("--kinitiras-cross-namespace-overrides", "kinitirasCrossNamespaceOverrides",
                    "kinitirasCrossNamespaceOverrides", flag("kinitirasCrossNamespaceOverrides")),
            new Value("--kinitiras-webhook-label", "kinitirasWebhookLabel", "kinitirasWebhookLabel",
                    flag("kinitirasWebhookLabel")),
            new Value("--cert-manager", "certManager", "certManager", flag("certManager")),
            new Value("--webhook-ingress-cidr", "webhookIngressCidrs", "webhookIngressCidrs",
                    new Stand(List.of("cidrsentinel"), "cidrsentinel", ".Values.webhookIngressCidrs")),
            new Value("--client-ca-file", "clientCa", "clientCa", new Switch(null,
                    "CLIENTCASENTINEL".getBytes(StandardCharsets.US_ASCII), ".Values.clientCa", "CLIENTCASENTINEL",
                    ".Values.clientCa")),
            new Value("--tenant-scripts", "tenantScripts", "tenantScripts", new Switch(List.of(),
                    List.of("tenantsentinel"), ".Values.tenantScripts", "tenantsentinel",
                    "join \",\" .Values.tenantScripts")),
            new Value("--node-annotations", "nodeAnnotations", "nodeAnnotations", flag("nodeAnnotations")),
            new Value("--reports", "reports", "reports", flag("reports")),
            new Value("--service-monitor", "serviceMonitor", "serviceMonitor", flag("serviceMonitor")),
            new Value("--prometheus-rule", "prometheusRule", "prometheusRule", flag("prometheusRule")),
            new Value("--dashboard", "dashboard", "dashboard", flag("dashboard")),
            new Value("--priority-class", "priorityClass", "priorityClass", new Switch(null, "prioritysentinel",
                    ".Values.priorityClass", "prioritysentinel", ".Values.priorityClass")),
            new Value("--max-replicas", "maxReplicas", "maxReplicas", new Switch(0, 4711, ".Values.maxReplicas",
                    "4711", ".Values.maxReplicas")),
            new Value("--ignore-namespaces", "ignoreNamespaces", "ignoreNamespaces", new Switch(List.of(),
                    List.of("ignsentinel"), ".Values.ignoreNamespaces", "ignsentinel", ".Values.ignoreNamespaces")),
            new Value("--node-selector", "nodeSelector", "nodeSelector", new Switch(Map.of(),
                    Map.of("nodeselsentinel", "nodeselvaluesentinel"), ".Values.nodeSelector", null, null)),
            new Value("--tolerations", "tolerations", "tolerations", new Switch(List.of(),
                    List.of("tolsentinel=tolvaluesentinel:NoSchedule"), ".Values.tolerations", null, null)),
            new Value("--server-cpu", "serverCpu", "serverCpu", new Stand("4321m", "4321m", ".Values.serverCpu")),
            new Value("--server-cpu-limit", "serverCpuLimit", "serverCpuLimit", new Stand("8642m", "8642m",
                    ".Values.serverCpuLimit")),
            // unset: the bundle's own, which depends on kinitirasCompat
            new Value("--server-memory", "serverMemory", "serverMemory", new Switch(null, "9753Mi",
                    ".Values.serverMemory", "9753Mi", ".Values.serverMemory")),
            new Value("--drain-seconds", "drainSeconds", "drainSeconds", new Stand(7919, "7919",
                    ".Values.drainSeconds")),
            new Value("--log-level", "logLevel", "logLevel", new Switch(null, "loglevelsentinel", ".Values.logLevel",
                    "loglevelsentinel", ".Values.logLevel")));

    /** The certgen Job's name carries a digest of its spec; the chart names it by release revision instead. */
    private static final Pattern CERTGEN_JOB = Pattern.compile(Bundle.CERTGEN + "-[0-9a-f]{10}\\b");
    private static final String CERTGEN_JOB_TOKEN = Bundle.CERTGEN + "-jobsentinel";
    /** The server pods' toleration of the placeholder taint. */
    private static final Pattern TOLERATION = Pattern.compile("( *)- effect: NoSchedule\n\\1  key: tolsentinel\n"
            + "\\1  operator: Equal\n\\1  value: tolvaluesentinel\n");
    /** An RBAC rule the bundle writes per API group of a list of [group/]plural resources. */
    /** The items of an RBAC rule's {@code verbs:} list. */
    private static final Pattern VERBS = Pattern.compile("(?m)^ *- ([a-z]+)$");
    private static final Pattern GROUP_RULE = Pattern.compile("( *)- apiGroups:\n *- (refgrp|kindgrp|applygrp)\\.sentinel\n"
            + "(?:\\1  .*\n)*");

    private HelmChart() {
    }

    private static List<Switch> switches() {
        return VALUES.stream().map(Value::placeholder).filter(p -> p instanceof Switch).map(p -> (Switch) p).toList();
    }

    private static int switchIndex(String component) {
        int i = 0;
        for (Value v : VALUES) {
            if (v.placeholder() instanceof Switch) {
                if (v.component().equals(component)) {
                    return i;
                }
                i++;
            }
        }
        throw new IllegalArgumentException(component);
    }

    /** What the installer refuses with --webhook-url (values by component) and its message, which the chart fails with. */
    private static final List<Map.Entry<String, String>> NOT_WITH_URL = List.of(
            Map.entry("certManager", InstallOptions.URL_WITH_CERT_MANAGER),
            Map.entry("clientCa", InstallOptions.URL_WITH_IN_CLUSTER_OPTIONS),
            Map.entry("webhookIngressCidrs", InstallOptions.URL_WITH_IN_CLUSTER_OPTIONS),
            Map.entry("tenantScripts", InstallOptions.URL_WITH_IN_CLUSTER_OPTIONS),
            Map.entry("serviceMonitor", InstallOptions.URL_WITH_SERVICE_MONITOR));

    /** The combinations of switches the installer accepts. */
    static boolean allowed(BitSet on) {
        return !on.get(switchIndex("webhookUrl")) || NOT_WITH_URL.stream()
                .filter(e -> value(e.getKey()).placeholder() instanceof Switch)
                .noneMatch(e -> on.get(switchIndex(e.getKey())));
    }

    private static Value value(String component) {
        return VALUES.stream().filter(v -> v.component().equals(component)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(component));
    }

    /**
     * The Go template test of a value being given: a switch's own test; a value that always has one (a list the
     * installer fills in unless told) is given when it is not the installer's default.
     */
    static String given(String component) {
        Value v = value(component);
        if (v.placeholder() instanceof Switch sw) {
            return sw.test();
        }
        String unset = new GsonBuilder().disableHtmlEscaping().create()
                .toJson(chartValue(InstallOptions.defaults(), v));
        return "(ne (toJson .Values." + v.key() + ") `" + unset + "`)";
    }

    /** The chart's refusals of what the installer refuses: Helm fails with the installer's message. */
    static String guards() {
        var out = new StringBuilder();
        String url = given("webhookUrl");
        NOT_WITH_URL.forEach(e -> out.append("{{- if (and ").append(url).append(' ').append(given(e.getKey()))
                .append(") }}\n{{- fail \"").append(e.getValue().replace("\\", "\\\\").replace("\"", "\\\""))
                .append("\" }}\n{{- end }}\n"));
        return out.toString();
    }

    /** The installer's options with every value at its placeholder, and the switches in {@code on} on. */
    static InstallOptions placeholders(BitSet on) {
        var values = new LinkedHashMap<String, Object>();
        int s = 0;
        for (Value v : VALUES) {
            if (v.placeholder() instanceof Switch sw) {
                values.put(v.component(), on.get(s++) ? sw.on() : sw.off());
            } else {
                values.put(v.component(), ((Stand) v.placeholder()).value());
            }
        }
        return withComponents(InstallOptions.defaults(), values);
    }

    /** A copy of the options with the named components replaced. */
    static InstallOptions withComponents(InstallOptions options, Map<String, Object> replaced) {
        RecordComponent[] components = InstallOptions.class.getRecordComponents();
        Object[] args = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                types[i] = components[i].getType();
                args[i] = replaced.containsKey(components[i].getName()) ? replaced.get(components[i].getName())
                        : components[i].getAccessor().invoke(options);
            }
            return InstallOptions.class.getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The bundle's text with the switches in {@code on} on, the certgen Job's digest replaced. */
    static String render(BitSet on) {
        String text = BundleYaml.write(new Bundle(placeholders(on)).objects());
        // The bundle's own braces (the alerts' and the dashboard's templates) are text to Helm, not its actions.
        text = text.replace("{{", OPEN_BRACES).replace("}}", CLOSE_BRACES);
        return CERTGEN_JOB.matcher(text).replaceAll(CERTGEN_JOB_TOKEN);
    }

    /** Stand for the bundle's own {@code {{} and {@code }}} in the template's text until it is written. */
    private static final String OPEN_BRACES = "LBRACESSENTINEL";
    private static final String CLOSE_BRACES = "RBRACESSENTINEL";

    /** The template depends on the installer's code only, not on the options: made once (some seconds). */
    static GuardedText template() {
        return Template.TEXT;
    }

    private static final class Template {
        static final GuardedText TEXT = GuardedText.of(HelmChart::render, switches().size(), HelmChart::allowed);
    }

    /** Writes the chart into {@code dir}. */
    static void write(Path dir, InstallOptions defaults) throws IOException {
        Files.createDirectories(dir.resolve("templates"));
        Files.writeString(dir.resolve("Chart.yaml"), chartYaml());
        Files.writeString(dir.resolve("values.yaml"), valuesYaml(defaults));
        Files.writeString(dir.resolve("values.schema.json"), ValuesSchema.json());
        Files.writeString(dir.resolve("templates/remold.yaml"), templateText(template()));
        Files.writeString(dir.resolve("templates/_helpers.tpl"), resource("_helpers.tpl"));
        Files.writeString(dir.resolve("templates/uninstall.yaml"), uninstallHook());
        Files.writeString(dir.resolve(".helmignore"), "# written by java -jar remold-installer.jar --helm-chart\n");
    }

    private static String resource(String name) throws IOException {
        try (var in = HelmChart.class.getResourceAsStream("chart/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * Helm's pre-delete hook: certgen deletes both webhook configurations before Helm deletes anything, so the API
     * server never calls a webhook whose server is gone (Helm deletes without waiting, in its own kind order). Its
     * identity may delete exactly those two objects. Not with --webhook-url: that server is not Helm's to remove.
     */
    static String uninstallHook() {
        String hook = """
                  annotations:
                    helm.sh/hook: pre-delete
                    helm.sh/hook-weight: "%s"
                    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
                """;
        return """
                # Written by java -jar remold-installer.jar --helm-chart: uninstall removes the webhooks first.
                {{- if not .Values.webhookUrl }}
                apiVersion: v1
                kind: ServiceAccount
                metadata:
                  name: %9$s
                  namespace: {{ .Values.namespace | quote }}
                %1$s---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRole
                metadata:
                  name: %9$s
                %1$srules:
                - apiGroups: [admissionregistration.k8s.io]
                  resources: [mutatingwebhookconfigurations]
                  resourceNames: [%3$s]
                  verbs: [delete]
                - apiGroups: [admissionregistration.k8s.io]
                  resources: [validatingwebhookconfigurations]
                  resourceNames: [%4$s]
                  verbs: [delete]
                ---
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata:
                  name: %9$s
                %1$sroleRef:
                  apiGroup: rbac.authorization.k8s.io
                  kind: ClusterRole
                  name: %9$s
                subjects:
                - kind: ServiceAccount
                  name: %9$s
                  namespace: {{ .Values.namespace | quote }}
                ---
                apiVersion: batch/v1
                kind: Job
                metadata:
                  name: %9$s
                  namespace: {{ .Values.namespace | quote }}
                %2$sspec:
                  backoffLimit: 3
                  template:
                    spec:
                      serviceAccountName: %9$s
                      restartPolicy: OnFailure
                      securityContext:
                        runAsNonRoot: true
                        runAsUser: %5$d
                        runAsGroup: %5$d
                        seccompProfile:
                          type: RuntimeDefault
                      containers:
                      - name: delete-webhooks
                        image: "{{ .Values.image }}:{{ .Values.tag }}"
                        {{- if .Values.imagePullPolicy }}
                        imagePullPolicy: {{ .Values.imagePullPolicy | quote }}
                        {{- end }}
                        command: [java, -jar, %6$s]
                        args: [--delete-webhooks, --mutating-webhook=%3$s, --validating-webhook=%4$s]
                        env:
                        - name: JAVA_TOOL_OPTIONS
                          value: "%7$s"
                        resources:
                          requests: {cpu: 50m, memory: 128Mi}
                          limits: {cpu: 500m, memory: %8$s}
                        securityContext:
                          allowPrivilegeEscalation: false
                          readOnlyRootFilesystem: true
                          capabilities:
                            drop: [ALL]
                        volumeMounts:
                        - name: tmp
                          mountPath: /tmp
                      volumes:
                      - name: tmp
                        emptyDir:
                          sizeLimit: 64Mi
                {{- end }}
                """.formatted(hook.formatted(-10), hook.formatted(0), Bundle.MUTATING_CONFIG, Bundle.VALIDATING_CONFIG,
                Bundle.IMAGE_UID, Bundle.CERTGEN_JAR, Bundle.CERTGEN_JVM_OPTIONS, Bundle.CERTGEN_MEMORY_LIMIT,
                Bundle.UNINSTALL_HOOK);
    }

    static String chartYaml() {
        String version = InstallOptions.DEFAULT_TAG.replace("-SNAPSHOT", "");
        return """
                # Written by java -jar remold-installer.jar --helm-chart: the installer's bundle as a chart.
                apiVersion: v2
                name: remold
                description: Remold, a Kubernetes admission operator (ModRules, and the KubeMod, Gatekeeper, \
                js-admissions and kinitiras rule families)
                type: application
                version: %s
                appVersion: "%s"
                """.formatted(version, InstallOptions.DEFAULT_TAG);
    }

    /** values.yaml: each option's value from {@code defaults}, under its line of --help. */
    static String valuesYaml(InstallOptions defaults) {
        var dump = new DumperOptions();
        dump.setDefaultFlowStyle(DumperOptions.FlowStyle.FLOW);
        dump.setSplitLines(false);
        var yaml = new Yaml(dump);
        var out = new StringBuilder("""
                # Written by java -jar remold-installer.jar --helm-chart: one value per installer option
                # (docs/install.md), defaulting to the options given with --helm-chart.
                """);
        for (Value v : VALUES) {
            out.append('\n');
            help(v.flag()).lines().forEach(line -> out.append("# ").append(line).append('\n'));
            out.append(v.key()).append(": ").append(yaml.dump(chartValue(defaults, v)).strip()).append('\n');
        }
        return out.toString();
    }

    /** An option's value in the chart's terms: PEM bytes as text, unset as empty. */
    static Object chartValue(InstallOptions options, Value v) {
        Object value;
        try {
            value = InstallOptions.class.getDeclaredMethod(v.component()).invoke(options);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        if (value instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.US_ASCII);
        }
        // unset: what the installer gives without --script-kinds (the chart's helper derives the same)
        if ("scriptKinds".equals(v.component())
                && value.equals(options.jsAdmissionsCompat() ? InstallOptions.DEFAULT_SCRIPT_KINDS : List.of())) {
            return null;
        }
        return value == null ? "" : value;
    }

    /** The option's lines of --help, its name first. */
    static String help(String flag) {
        var lines = InstallOptions.USAGE.lines().toList();
        var out = new ArrayList<String>();
        for (String line : lines) {
            if (out.isEmpty()) {
                if (line.startsWith("  " + flag + " ") || line.equals("  " + flag)) {
                    out.add(line.strip().replaceAll(" {2,}", "  "));
                }
            } else if (line.startsWith("   ") && !line.strip().startsWith("--")) {
                out.add("  " + line.strip());
            } else {
                break;
            }
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("--help lists no " + flag);
        }
        return String.join("\n", out);
    }

    /** The Go template text of the guarded bundle. */
    static String templateText(GuardedText text) {
        List<Switch> switches = switches();
        Function<Integer, String> test = i -> switches.get(i).test();
        var out = new StringBuilder("# Written by java -jar remold-installer.jar --helm-chart from the bundle's model.\n")
                .append(guards());
        var group = new StringBuilder();
        GuardedText.Cond groupCond = null;
        for (GuardedText.Line line : text.lines()) {
            if (!line.cond().equals(groupCond)) {
                flush(out, group, groupCond, test);
                groupCond = line.cond();
            }
            for (GuardedText.Piece piece : line.pieces()) {
                String t = substitute(piece.text());
                group.append(piece.cond().equals(GuardedText.ALWAYS) ? t
                        : "{{ if " + piece.cond().template(test) + " }}" + t + "{{ end }}");
            }
            group.append('\n');
        }
        flush(out, group, groupCond, test);
        return out.toString().replace(OPEN_BRACES, "{{ \"{{\" }}").replace(CLOSE_BRACES, "{{ \"}}\" }}");
    }

    private static void flush(StringBuilder out, StringBuilder group, GuardedText.Cond cond,
                              Function<Integer, String> test) {
        if (group.isEmpty()) {
            return;
        }
        String text = lists(group.toString());
        if (cond.equals(GuardedText.ALWAYS)) {
            out.append(text);
        } else {
            out.append("{{- if ").append(cond.template(test)).append(" }}\n").append(text).append("{{- end }}\n");
        }
        group.setLength(0);
    }

    /** Lines standing for a whole list: a range over the chart value, or the RBAC rules of [group/]plural lists. */
    private static String lists(String text) {
        Matcher rules = GROUP_RULE.matcher(text);
        var sb = new StringBuilder();
        while (rules.find()) {
            String list = switch (rules.group(2)) {
                case "refgrp" -> ".Values.allowReferences";
                case "applygrp" -> ".Values.existingApplyResources";
                default -> "(include \"remold.scriptKinds\" . | fromJsonArray)";
            };
            // the verbs the bundle wrote for the sentinel resource, so that the chart grants what the bundle does
            String verbs = VERBS.matcher(rules.group().substring(rules.group().indexOf("verbs:"))).results()
                    .map(verb -> "\"" + verb.group(1) + "\"").collect(Collectors.joining(" ", "(list ", ")"));
            rules.appendReplacement(sb, Matcher.quoteReplacement("{{- include \"remold.groupRules\" (dict \"resources\" "
                    + list + " \"verbs\" " + verbs + ") | trim | nindent " + rules.group(1).length() + " }}\n"));
        }
        rules.appendTail(sb);
        text = sb.toString();
        text = text.replaceAll("(?m)^(.*\\{\\{ \\.Values\\.caBundle \\| b64enc[^}]*}}.*)$",
                "{{- if .Values.caBundle }}\n$1\n{{- end }}");
        for (Value v : VALUES) {
            String token = listToken(v);
            if (token == null) {
                continue;
            }
            String expression = v.placeholder() instanceof Stand stand ? stand.expression()
                    : ((Switch) v.placeholder()).test();
            text = text.replaceAll("(?m)^( *)- ipBlock:\n *cidr: " + token + "$",
                    "{{- range " + expression + " }}\n$1- ipBlock:\n$1    cidr: {{ . | quote }}\n{{- end }}");
            text = text.replaceAll("(?m)^( *)- " + token + "$",
                    "{{- range " + expression + " }}\n$1- {{ . | quote }}\n{{- end }}");
        }
        Matcher toleration = TOLERATION.matcher(text);
        if (toleration.find()) {
            text = toleration.replaceAll(Matcher.quoteReplacement("{{- include \"remold.tolerations\" .Values.tolerations"
                    + " | trim | nindent " + toleration.group(1).length() + " }}\n"));
        }
        text = text.replaceAll("(?m)^( *)nodeselsentinel: nodeselvaluesentinel$",
                "{{- range \\$label, \\$value := .Values.nodeSelector }}\n$1{{ \\$label | quote }}: {{ \\$value | quote }}"
                        + "\n{{- end }}");
        return text;
    }

    /** The placeholder of a list value, which stands for the whole list where it is a list item of its own. */
    private static String listToken(Value v) {
        if (v.placeholder() instanceof Stand stand) {
            return stand.value() instanceof List<?> ? stand.token() : null;
        }
        Switch sw = (Switch) v.placeholder();
        return sw.on() instanceof List<?> ? sw.token() : null;
    }

    /** Placeholder values to the values' expressions: a whole scalar quoted (but numbers), a part as it is. */
    private static String substitute(String text) {
        text = text.replace(CERTGEN_JOB_TOKEN, Bundle.CERTGEN + "-{{ .Release.Revision }}");
        for (Value v : VALUES) {
            String token;
            String expression;
            boolean number = false;
            if (v.placeholder() instanceof Stand stand) {
                if (stand.value() instanceof List<?>) {
                    continue;
                }
                token = stand.token();
                expression = stand.expression();
                number = stand.value() instanceof Integer;
            } else {
                Switch sw = (Switch) v.placeholder();
                token = sw.token();
                expression = sw.expression();
                number = sw.on() instanceof Integer;
            }
            if (token == null || !text.contains(token) || text.matches(" *- " + Pattern.quote(token))) {
                continue;
            }
            String whole = "(?m)^( *(?:- )?(?:[A-Za-z0-9_./-]+: )?)" + Pattern.quote(token) + "$";
            if (!number && Pattern.compile(whole).matcher(text).find()) {
                text = text.replaceAll(whole, "$1" + Matcher.quoteReplacement("{{ " + expression + " | quote }}"));
            }
            text = text.replace(token, "{{ " + expression + " }}");
        }
        return text;
    }

}

package io.remold.installer;

import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The observability pack, each part behind its flag: a ServiceMonitor (with the Service of the admin port it scrapes),
 * a PrometheusRule and the Grafana dashboard in a ConfigMap that Grafana's sidecar loads. Their text lives in the
 * classpath folder {@code observability/} beside this class, which the Helm chart reads as well.
 *
 * @param serviceMonitor whether a ServiceMonitor (monitoring.coreos.com/v1) scrapes the servers
 * @param prometheusRule whether the alerts are installed as a PrometheusRule
 * @param dashboard      whether the dashboard is installed as a ConfigMap labelled {@value #DASHBOARD_LABEL}
 */
record Monitoring(boolean serviceMonitor, boolean prometheusRule, boolean dashboard) {
    static final String FOLDER = "observability/";
    static final String SERVICE_MONITOR = FOLDER + "servicemonitor.yaml";
    static final String PROMETHEUS_RULE = FOLDER + "prometheusrule.yaml";
    static final String DASHBOARD = FOLDER + "dashboard.json";
    /** The label Grafana's dashboard sidecar (kube-prometheus-stack's default) looks for. */
    static final String DASHBOARD_LABEL = "grafana_dashboard";
    static final String METRICS_SERVICE = "remold-metrics";
    static final String DASHBOARD_CONFIG_MAP = "remold-dashboard";
    /** Where the PrometheusRule's latency alert takes the webhooks' timeout. */
    static final String TIMEOUT_PLACEHOLDER = "${timeoutSeconds}";

    /** The objects to install for {@code options}, in the system namespace, labelled as the bundle's others. */
    static List<Object> objects(InstallOptions options, Map<String, String> labels) {
        Monitoring monitoring = options.monitoring();
        String ns = options.namespace();
        var objects = new ArrayList<Object>();
        if (monitoring.serviceMonitor()) {
            objects.add(metricsService(ns, labels));
            objects.add(resource(read(SERVICE_MONITOR), ns, labels));
        }
        if (monitoring.prometheusRule()) {
            String rules = read(PROMETHEUS_RULE).replace(TIMEOUT_PLACEHOLDER, Integer.toString(options.timeoutSeconds()));
            objects.add(resource(rules, ns, labels));
        }
        if (monitoring.dashboard()) {
            var meta = new V1ObjectMeta().name(DASHBOARD_CONFIG_MAP).namespace(ns).labels(new TreeMap<>(labels));
            meta.getLabels().put(DASHBOARD_LABEL, "1");
            objects.add(new V1ConfigMap().apiVersion("v1").kind("ConfigMap").metadata(meta)
                    .data(Map.of("remold.json", read(DASHBOARD))));
        }
        return objects;
    }

    /** The admin port (probes and /metrics, plain HTTP), which the webhook Service does not expose. */
    private static V1Service metricsService(String ns, Map<String, String> labels) {
        var meta = new V1ObjectMeta().name(METRICS_SERVICE).namespace(ns).labels(new TreeMap<>(labels));
        meta.getLabels().put("app.kubernetes.io/component", "metrics");
        return new V1Service().apiVersion("v1").kind("Service").metadata(meta).spec(new V1ServiceSpec()
                .selector(Bundle.serverSelector())
                .ports(List.of(new V1ServicePort().name("admin").port(Bundle.ADMIN_PORT)
                        .targetPort(new IntOrString("admin")))));
    }

    /** A resource file's object (a kind without a client-java model: a plain map), placed in {@code ns}. */
    private static Map<String, Object> resource(String yaml, String ns, Map<String, String> labels) {
        Map<String, Object> object = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
        @SuppressWarnings("unchecked")
        var meta = (Map<String, Object>) object.get("metadata");
        meta.put("namespace", ns);
        meta.put("labels", new TreeMap<>(labels));
        return object;
    }

    /** A file of the observability folder, as UTF-8 text. */
    static String read(String name) {
        try (InputStream in = Monitoring.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

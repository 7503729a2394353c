package io.remold.installer;

import com.google.gson.JsonParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/** The observability pack: off by default, each part behind its flag, wired to the server it watches. */
class MonitoringTest {
    private static List<Map<String, Object>> documents(String... args) {
        InstallerTest.Result result = InstallerTest.run(args);
        assertThat(result.err(), result.code(), is(0));
        var documents = new ArrayList<Map<String, Object>>();
        for (Object document : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(result.out())) {
            @SuppressWarnings("unchecked")
            var map = (Map<String, Object>) document;
            documents.add(map);
        }
        return documents;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    private static List<Map<String, Object>> named(List<Map<String, Object>> documents, String kind) {
        return documents.stream().filter(d -> kind.equals(d.get("kind"))).toList();
    }

    @Test
    void nothingOfThePackIsInstalledUnlessAsked() {
        List<Map<String, Object>> documents = documents();
        assertThat(named(documents, "ServiceMonitor"), is(empty()));
        assertThat(named(documents, "PrometheusRule"), is(empty()));
        List<Object> names = documents.stream().map(d -> map(d.get("metadata")).get("name")).toList();
        assertThat(names, not(hasItem(Monitoring.METRICS_SERVICE)));
        assertThat(names, not(hasItem(Monitoring.DASHBOARD_CONFIG_MAP)));
    }

    @Test
    void theServiceMonitorScrapesTheAdminPortOfTheServerPodsThroughItsOwnService() {
        List<Map<String, Object>> documents = documents("--namespace", "obs", "--service-monitor");
        Map<String, Object> monitor = named(documents, "ServiceMonitor").get(0);
        assertThat(map(monitor.get("metadata")).get("namespace"), is("obs"));
        Map<String, Object> selector = map(map(map(monitor.get("spec")).get("selector")).get("matchLabels"));
        Map<String, Object> service = named(documents, "Service").stream()
                .filter(s -> Monitoring.METRICS_SERVICE.equals(map(s.get("metadata")).get("name"))).findFirst().orElseThrow();
        Map<String, Object> labels = map(map(service.get("metadata")).get("labels"));
        selector.forEach((key, value) -> assertThat(key, labels.get(key), equalTo(value)));
        @SuppressWarnings("unchecked")
        var port = ((List<Map<String, Object>>) map(service.get("spec")).get("ports")).get(0);
        assertThat(port.get("port"), is(Bundle.ADMIN_PORT));
        assertThat(port.get("targetPort"), is("admin"));
        assertThat(map(map(service.get("spec")).get("selector")), equalTo(Map.copyOf(Bundle.serverSelector())));
        @SuppressWarnings("unchecked")
        var endpoint = ((List<Map<String, Object>>) map(monitor.get("spec")).get("endpoints")).get(0);
        assertThat(endpoint.get("port"), is("admin"));
        assertThat(endpoint.get("path"), is("/metrics"));
    }

    @Test
    void theLatencyAlertFiresAtFourFifthsOfTheWebhookTimeout() {
        String rule = InstallerTest.run("--prometheus-rule", "--timeout-seconds", "12").out();
        assertThat(rule, containsString("> 0.8 * 12"));
        assertThat(rule, not(containsString(Monitoring.TIMEOUT_PLACEHOLDER)));
    }

    @Test
    void theDashboardIsAConfigMapThatGrafanasSidecarLoads() {
        Map<String, Object> configMap = named(documents("--dashboard"), "ConfigMap").stream()
                .filter(c -> Monitoring.DASHBOARD_CONFIG_MAP.equals(map(c.get("metadata")).get("name")))
                .findFirst().orElseThrow();
        assertThat(map(map(configMap.get("metadata")).get("labels")).get(Monitoring.DASHBOARD_LABEL), is("1"));
        String json = (String) map(configMap.get("data")).get("remold.json");
        assertThat(JsonParser.parseString(json).getAsJsonObject().get("uid").getAsString(), is("remold"));
        assertThat(json, equalTo(Monitoring.read(Monitoring.DASHBOARD)));
    }
}

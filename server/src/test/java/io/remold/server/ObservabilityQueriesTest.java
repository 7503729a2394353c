package io.remold.server;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.remold.server.http.TestServer;
import io.remold.server.http.WebhookServerTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * Every query of the installer's dashboard and alerts names metrics that a running server exports (scraped over its
 * admin port after real HTTPS admission requests), so that a renamed metric cannot leave a panel or alert empty.
 */
class ObservabilityQueriesTest {
    private static final Path PACK = Path.of("..", "installer", "src", "main", "resources", "io", "remold", "installer",
            "observability");
    /** {@code # TYPE name type}. */
    private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$", Pattern.MULTILINE);
    static Stream<Arguments> expressions() {
        return Stream.of(
                Arguments.of("rate(remold_requests_total{endpoint=~\"/mutate|/validate\",outcome=\"error\"}[5m])",
                        Set.of("remold_requests_total")),
                Arguments.of("histogram_quantile(0.99, sum by (le, endpoint) (rate(a_seconds_bucket[$__rate_interval])))",
                        Set.of("a_seconds_bucket")),
                Arguments.of("min by (pod) (not_after) - time() < 7 * 86400 and on (pod) up_ish offset 5m",
                        Set.of("not_after", "up_ish")),
                Arguments.of("sum(x{l=\"by (le) } y\"}) without (job) / ignoring(a) group_left(b) y_total > 1e9",
                        Set.of("x", "y_total")),
                Arguments.of("label_values(remold_rules, namespace)", Set.of("remold_rules")),
                Arguments.of("topk(10, sum by (rule) (rate(c_total{namespace=\"$namespace\"}[${interval}]))) > 0.8 * 5",
                        Set.of("c_total")));
    }

    @ParameterizedTest
    @MethodSource("expressions")
    void theNamesOfAnExpressionAreItsMetricsOnly(String expression, Set<String> names) {
        assertThat(PromQlNames.of(expression), equalTo(names));
    }

    @Test
    void everyMetricOfTheDashboardAndTheAlertsIsExported(@TempDir Path dir) throws IOException {
        Map<String, String> queries = new TreeMap<>();
        queries.putAll(dashboardQueries(Files.readString(PACK.resolve("dashboard.json"))));
        queries.putAll(alertQueries(Files.readString(PACK.resolve("prometheusrule.yaml"))));
        Set<String> exported = exported(scrape(dir));

        var used = new TreeSet<String>();
        var missing = new ArrayList<String>();
        queries.forEach((where, query) -> {
            Set<String> names = PromQlNames.of(query);
            assertThat(where + " selects no metric: " + query, names, is(not(empty())));
            for (String name : names) {
                used.add(name);
                if (!exported.contains(name)) {
                    missing.add(where + ": " + name);
                }
            }
        });
        assertThat("metrics not exported", missing, is(empty()));
        // the pack covers what the alerts and panels promise
        assertThat(used, hasItems("remold_requests_total", "remold_request_duration_seconds_bucket",
                "remold_rules_not_ready", "remold_external_breaker_open", "remold_tls_certificate_not_after_seconds",
                "remold_leader", "remold_jvm_memory_used_bytes", "remold_rule_verdicts_total"));
    }

    /** Every panel target's expr and every templating query, by panel title. */
    private static Map<String, String> dashboardQueries(String json) {
        JsonObject dashboard = JsonParser.parseString(json).getAsJsonObject();
        var queries = new TreeMap<String, String>();
        for (JsonElement panel : dashboard.getAsJsonArray("panels")) {
            JsonArray targets = panel.getAsJsonObject().getAsJsonArray("targets");
            for (JsonElement target : targets) {
                JsonObject t = target.getAsJsonObject();
                queries.put("panel '" + panel.getAsJsonObject().get("title").getAsString() + "' "
                        + t.get("refId").getAsString(), t.get("expr").getAsString());
            }
        }
        for (JsonElement variable : dashboard.getAsJsonObject("templating").getAsJsonArray("list")) {
            JsonObject v = variable.getAsJsonObject();
            if (v.get("type").getAsString().equals("query")) {
                queries.put("variable " + v.get("name").getAsString(),
                        v.getAsJsonObject("query").get("query").getAsString());
            }
        }
        return queries;
    }

    /** Every alert's expr, by alert name, with the webhook timeout the installer fills in. */
    @SuppressWarnings("unchecked")
    private static Map<String, String> alertQueries(String yaml) {
        Map<String, Object> rule = new Yaml(new SafeConstructor(new LoaderOptions()))
                .load(yaml.replace("${timeoutSeconds}", "5"));
        var queries = new TreeMap<String, String>();
        for (var group : (List<Map<String, Object>>) ((Map<String, Object>) rule.get("spec")).get("groups")) {
            for (var alert : (List<Map<String, Object>>) group.get("rules")) {
                queries.put("alert " + alert.get("alert"), (String) alert.get("expr"));
            }
        }
        return queries;
    }

    /** A real server's /metrics after an admission request over HTTPS. */
    private static String scrape(Path dir) throws IOException {
        Files.createDirectories(dir.resolve("rules"));
        ServerConfig config = ServerConfig.load(Map.of("port", "0", "host", "127.0.0.1",
                "rules", dir.resolve("rules").toString(), "generated-cert-dir", dir.resolve("tls").toString(),
                "shutdown-grace-seconds", "1", "admin-port", String.valueOf(ServeTest.freePort())), Map.of());
        try (Serve serve = Serve.start(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
             HttpClient client = TestServer.client(serve.tls().ca())) {
            var admission = TestServer.send(client, HttpRequest.newBuilder(
                            URI.create("https://localhost:" + serve.port() + "/mutate"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(WebhookServerTest.review("m1", "CREATE", ""))).build());
            assertThat(admission.statusCode(), is(200));
            var metrics = TestServer.send(client, HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + serve.adminPort() + "/metrics")).build());
            assertThat(metrics.statusCode(), is(200));
            return metrics.body();
        }
    }

    /** The series names a scrape exports: each TYPE, and a histogram's _bucket, _sum and _count series. */
    private static Set<String> exported(String scrape) {
        var names = new TreeSet<String>();
        Matcher type = TYPE.matcher(scrape);
        while (type.find()) {
            String name = type.group(1);
            switch (type.group(2)) {
                case "histogram" -> names.addAll(List.of(name + "_bucket", name + "_sum", name + "_count"));
                case "summary" -> names.addAll(List.of(name, name + "_sum", name + "_count"));
                default -> names.add(name);
            }
        }
        return names;
    }
}

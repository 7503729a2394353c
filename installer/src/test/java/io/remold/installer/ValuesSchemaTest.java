package io.remold.installer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

import com.google.gson.Gson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

/**
 * The chart's values.schema.json against its values.yaml and the installer's own checks. helm cannot run here
 * (HelmIT runs helm template with bad values); a small check of the keywords the schema uses stands in for Helm's.
 */
class ValuesSchemaTest {
    private static final Path CHART = Path.of("..", "charts", "remold");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> schema() throws IOException {
        return new Gson().fromJson(Files.readString(CHART.resolve("values.schema.json")), Map.class);
    }

    private static Map<String, Object> values() throws IOException {
        return new Yaml().load(Files.readString(CHART.resolve("values.yaml")));
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyValueHasAPropertyAndEveryPropertyAValue() throws IOException {
        var properties = (Map<String, Map<String, Object>>) schema().get("properties");
        assertThat(List.copyOf(properties.keySet()), equalTo(List.copyOf(values().keySet())));
        assertThat(List.copyOf(properties.keySet()), equalTo(HelmChart.VALUES.stream().map(HelmChart.Value::key)
                .toList()));
        HelmChart.VALUES.forEach(v -> {
            assertThat(v.key(), properties.get(v.key()), hasKey("type"));
            assertThat(v.key(), (String) properties.get(v.key()).get("description"),
                    matchesPattern(Pattern.quote(v.flag()) + "[ :].+"));
        });
        assertThat(ValuesSchema.RULES.keySet().stream().filter(component -> HelmChart.VALUES.stream()
                .noneMatch(v -> v.component().equals(component))).toList(), empty());
    }

    @Test
    void theDefaultValuesValidate() throws IOException {
        assertThat(errors(schema(), values()), empty());
    }

    /** The values the installer writes for these options are valid: its defaults are. */
    static Stream<List<String>> installations() {
        return Stream.of(List.of(), List.of("--js-admissions-compat", "--kinitiras-compat", "--max-replicas", "4"),
                List.of("--webhook-url", "https://remold.example:8443/", "--ca-file", "src/test/resources/test-ca.crt"),
                List.of("--namespace", "other-system", "--image-pull-policy", "Always", "--resources", "pods,*",
                        "--allow-references", "configmaps,apps/deployments", "--script-kinds", "none",
                        "--webhook-ingress-cidr", "10.0.0.0/8,fd00::/64", "--client-ca-file",
                        "src/test/resources/test-ca.crt", "--tenant-scripts", "*", "--node-selector",
                        "kubernetes.io/os=linux,node-role.example/infra=", "--tolerations",
                        "dedicated=remold:NoSchedule,spot=", "--server-memory", "1Gi", "--log-level", "debug",
                        "--priority-class", "system-cluster-critical", "--existing-apply-resources",
                        "apps/deployments"));
    }

    @ParameterizedTest
    @MethodSource("installations")
    void theValuesTheInstallerWritesValidate(List<String> flags) throws Exception {
        Map<String, Object> values = new Yaml().load(HelmChart.valuesYaml(InstallOptions.parse(flags)));
        assertThat(errors(schema(), values), empty());
    }

    /** An option's value, and whether the installer takes it: the schema takes the same value in the chart. */
    static Stream<Arguments> optionValues() {
        return Stream.of(
                Arguments.of("--namespace", "remold-system", true),
                Arguments.of("--namespace", "Remold", false),
                Arguments.of("--image", "reg.example:5000/remold", true),
                Arguments.of("--image", "Reg/Remold", false),
                Arguments.of("--tag", "1.2.3", true),
                Arguments.of("--tag", "-1", false),
                Arguments.of("--image-pull-policy", "Never", true),
                Arguments.of("--image-pull-policy", "Sometimes", false),
                Arguments.of("--replicas", "100", true),
                Arguments.of("--replicas", "0", false),
                Arguments.of("--replicas", "101", false),
                Arguments.of("--replicas", "two", false),
                Arguments.of("--resources", "pods,*/scale,apps/*", true),
                Arguments.of("--resources", "Pods", false),
                Arguments.of("--operations", "CREATE,*", true),
                Arguments.of("--operations", "PATCH", false),
                Arguments.of("--mutate-failure-policy", "Fail", true),
                Arguments.of("--mutate-failure-policy", "fail", false),
                Arguments.of("--validate-failure-policy", "Always", false),
                Arguments.of("--timeout-seconds", "30", true),
                Arguments.of("--timeout-seconds", "31", false),
                Arguments.of("--allow-references", "configmaps,apps/deployments", true),
                Arguments.of("--allow-references", "apps/Deployments", false),
                Arguments.of("--existing-apply-resources", "apps/deployments", true),
                Arguments.of("--existing-apply-resources", "pods", false),
                Arguments.of("--script-kinds", "pods", true),
                Arguments.of("--script-kinds", "pods/", false),
                Arguments.of("--webhook-ingress-cidr", "10.0.0.0/8,fd00::/64", true),
                Arguments.of("--webhook-ingress-cidr", "10.0.0.0/33", false),
                Arguments.of("--webhook-ingress-cidr", "10.0.0.0", false),
                Arguments.of("--tenant-scripts", "*", true),
                Arguments.of("--tenant-scripts", "team_a", false),
                Arguments.of("--priority-class", "system-cluster-critical", true),
                Arguments.of("--priority-class", "High", false),
                Arguments.of("--max-replicas", "100", true),
                Arguments.of("--max-replicas", "101", false),
                Arguments.of("--ignore-namespaces", "team-a", true),
                Arguments.of("--ignore-namespaces", "team.a", false),
                Arguments.of("--node-selector", "kubernetes.io/os=linux,node-role.example/infra=", true),
                Arguments.of("--node-selector", "kubernetes.io/os=Linux!", false),
                Arguments.of("--node-selector", "-os=linux", false),
                Arguments.of("--tolerations", "dedicated=remold:NoSchedule,node-role.kubernetes.io/control-plane", true),
                Arguments.of("--tolerations", "dedicated=remold:Never", false),
                Arguments.of("--server-cpu", "0.5", true),
                Arguments.of("--server-cpu-limit", "250", true),
                Arguments.of("--server-cpu", "1Gi", false),
                Arguments.of("--server-cpu-limit", "0.5m", false),
                Arguments.of("--server-memory", "512Mi", true),
                Arguments.of("--server-memory", "1Ti", false),
                Arguments.of("--drain-seconds", "0", true),
                Arguments.of("--drain-seconds", "21", false),
                Arguments.of("--log-level", "debug", true),
                Arguments.of("--log-level", "trace", false));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("optionValues")
    void theSchemaTakesWhatTheInstallerTakes(String flag, String value, boolean accepted) throws IOException {
        boolean installerTakes;
        try {
            InstallOptions.parse(List.of(flag, value));
            installerTakes = true;
        } catch (UsageException e) {
            installerTakes = false;
        }
        assertThat("the installer takes " + flag + " " + value, installerTakes, is(accepted));
        HelmChart.Value v = HelmChart.VALUES.stream().filter(candidate -> candidate.flag().equals(flag)).findFirst()
                .orElseThrow();
        Map<String, Object> values = values();
        values.put(v.key(), chartValue(v, value));
        List<String> errors = errors(schema(), values);
        assertThat(errors.toString(), errors.isEmpty(), is(accepted));
        errors.forEach(error -> assertThat(error, containsString("/" + v.key())));
    }

    /** The option's text as Helm reads it in values: a YAML number, list or map where the value is one. */
    private static Object chartValue(HelmChart.Value v, String text) {
        Class<?> type = ValuesSchema.type(v);
        if (type == int.class) {
            return text.matches("-?[0-9]+") ? (Object) Integer.parseInt(text) : text;
        }
        if (type == List.class) {
            return Arrays.stream(text.split(",")).map(String::strip).toList();
        }
        if (type == Map.class) {
            var map = new LinkedHashMap<String, Object>();
            Arrays.stream(text.split(",")).forEach(pair -> map.put(pair.substring(0, pair.indexOf('=')),
                    pair.substring(pair.indexOf('=') + 1)));
            return map;
        }
        return text;
    }

    @Test
    void aCaIsPemText() throws IOException {
        String pem = Files.readString(Path.of("src/test/resources/test-ca.crt"));
        for (String key : List.of("caBundle", "clientCa")) {
            Map<String, Object> values = values();
            values.put(key, pem);
            assertThat(errors(schema(), values), empty());
            values.put(key, "/etc/remold/ca.crt");
            assertThat(errors(schema(), values), contains(containsString("/" + key)));
        }
    }

    @Test
    void aMistypedUnknownOrMissingValueFailsNamingIt() throws IOException {
        Map<String, Object> values = values();
        values.put("replicas", "two");
        values.put("kubemodCompat", "yes");
        values.put("replicaz", 3);
        assertThat(errors(schema(), values), containsInAnyOrder("/replicas: \"two\" is not integer",
                "/kubemodCompat: \"yes\" is not boolean", ": replicaz is not a property"));
        values = values();
        // Helm drops a value set to null
        values.remove("namespace");
        assertThat(errors(schema(), values), equalTo(List.of(": namespace is missing")));
        values.remove("serverMemory");
        values.remove("scriptKinds");
        assertThat("values that are unset without", errors(schema(), values), equalTo(List.of(
                ": namespace is missing")));
    }

    /**
     * What the schema finds wrong with the value, each as "path: what": the keywords values.schema.json uses, as JSON
     * Schema defines them; a keyword not checked here fails.
     */
    static List<String> errors(Map<String, Object> schema, Object value) {
        var errors = new ArrayList<String>();
        check(schema, value, "", errors);
        return errors;
    }

    @SuppressWarnings("unchecked")
    private static void check(Map<String, Object> schema, Object value, String path, List<String> errors) {
        for (var keyword : schema.entrySet()) {
            Object arg = keyword.getValue();
            switch (keyword.getKey()) {
                case "$schema", "$comment", "description" -> {
                }
                case "type" -> {
                    List<String> types = arg instanceof List<?> list ? (List<String>) list : List.of((String) arg);
                    if (types.stream().noneMatch(type -> isType(value, type))) {
                        errors.add(path + ": " + json(value) + " is not " + String.join(" or ", types));
                        return;
                    }
                }
                case "enum" -> {
                    if (!((List<?>) arg).contains(value)) {
                        errors.add(path + ": " + json(value) + " is not one of " + arg);
                    }
                }
                case "const" -> {
                    if (!arg.equals(value)) {
                        errors.add(path + ": " + json(value) + " is not " + json(arg));
                    }
                }
                case "not" -> {
                    var inner = new ArrayList<String>();
                    check((Map<String, Object>) arg, value, path, inner);
                    if (inner.isEmpty()) {
                        errors.add(path + ": " + json(value) + " is " + json(arg));
                    }
                }
                case "pattern" -> {
                    if (value instanceof String s && !Pattern.compile((String) arg).matcher(s).find()) {
                        errors.add(path + ": " + json(value) + " does not match " + arg);
                    }
                }
                case "minimum", "maximum" -> {
                    double bound = ((Number) arg).doubleValue();
                    if (value instanceof Number n && (keyword.getKey().equals("minimum") ? n.doubleValue() < bound
                            : n.doubleValue() > bound)) {
                        errors.add(path + ": " + value + " is out of " + keyword.getKey() + " " + arg);
                    }
                }
                case "minItems" -> {
                    if (value instanceof List<?> list && list.size() < ((Number) arg).intValue()) {
                        errors.add(path + ": " + list.size() + " items are fewer than " + arg);
                    }
                }
                case "items" -> {
                    if (value instanceof List<?> list) {
                        for (int i = 0; i < list.size(); i++) {
                            check((Map<String, Object>) arg, list.get(i), path + "/" + i, errors);
                        }
                    }
                }
                case "required" -> {
                    if (value instanceof Map<?, ?> map) {
                        ((List<String>) arg).stream().filter(name -> !map.containsKey(name))
                                .forEach(name -> errors.add(path + ": " + name + " is missing"));
                    }
                }
                case "properties" -> {
                    if (value instanceof Map<?, ?> map) {
                        ((Map<String, Map<String, Object>>) arg).forEach((name, property) -> {
                            if (map.containsKey(name)) {
                                check(property, map.get(name), path + "/" + name, errors);
                            }
                        });
                    }
                }
                case "propertyNames" -> {
                    if (value instanceof Map<?, ?> map) {
                        map.keySet().forEach(name -> check((Map<String, Object>) arg, name, path + "/" + name, errors));
                    }
                }
                case "additionalProperties" -> {
                    if (value instanceof Map<?, ?> map) {
                        var named = schema.containsKey("properties")
                                ? ((Map<String, Object>) schema.get("properties")).keySet() : Set.of();
                        map.forEach((name, item) -> {
                            if (named.contains(name)) {
                                return;
                            }
                            if (arg.equals(false)) {
                                errors.add(path + ": " + name + " is not a property");
                            } else {
                                check((Map<String, Object>) arg, item, path + "/" + name, errors);
                            }
                        });
                    }
                }
                default -> throw new IllegalArgumentException("a keyword this check does not know: "
                        + keyword.getKey() + " (at " + path + ")");
            }
        }
    }

    private static boolean isType(Object value, String type) {
        return switch (type) {
            case "string" -> value instanceof String;
            case "integer" -> value instanceof Integer || value instanceof Long;
            case "boolean" -> value instanceof Boolean;
            case "array" -> value instanceof List<?>;
            case "object" -> value instanceof Map<?, ?>;
            case "null" -> value == null;
            default -> throw new IllegalArgumentException("type " + type);
        };
    }

    private static String json(Object value) {
        return new Gson().toJson(value);
    }
}

package io.remold.api;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.URI;
import java.time.Duration;
import java.util.Base64;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ProviderTest {

    private static JsonObject manifest(String spec) {
        return (JsonObject) YamlJson.parse("{apiVersion: remold.io/v1beta1, kind: Provider, metadata: {name: mirror},"
                + " spec: " + spec + "}", "test").getFirst();
    }

    @Test
    void defaults() {
        Provider p = Provider.fromJson(manifest("{url: 'https://mirror.tools.svc:8443/lookup'}"), "test");
        assertThat(p.name(), equalTo("mirror"));
        assertThat(p.url(), equalTo(URI.create("https://mirror.tools.svc:8443/lookup")));
        assertThat(p.caCertificates(), is(empty()));
        assertThat(p.timeout(), equalTo(Duration.ofSeconds(1)));
        assertThat(p.cacheTTL(), equalTo(Duration.ofMinutes(1)));
        assertThat(p.maxEntries(), equalTo(1000));
        assertThat(p.failurePolicy(), equalTo(Provider.FailurePolicy.Fail));
        assertThat(p.namespaces(), is(empty()));
    }

    @Test
    void everyField() {
        Provider p = Provider.fromJson(manifest("{url: 'https://m/x', timeout: 2500ms, cacheTTL: 1h30m,"
                + " maxEntries: 100000, failurePolicy: Ignore, namespaces: [team-a, b2]}"), "test");
        assertThat(p.timeout(), equalTo(Duration.ofMillis(2500)));
        assertThat(p.cacheTTL(), equalTo(Duration.ofMinutes(90)));
        assertThat(p.maxEntries(), equalTo(100000));
        assertThat(p.failurePolicy(), equalTo(Provider.FailurePolicy.Ignore));
        assertThat(p.namespaces(), equalTo(java.util.List.of("team-a", "b2")));
    }

    /** Who may call a Provider: cluster-wide callers always, namespaced ones when spec.namespaces lets them. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', useHeadersInDisplayName = true, textBlock = """
            namespaces      | caller | clusterWide | allowed
            []              | a      | false       | false
            []              | system | true        | true
            [b]             | a      | false       | false
            [b]             | b      | false       | true
            [a, b]          | a      | false       | true
            ['*']           | a      | false       | true
            [b]             | system | true        | true
            """)
    void whoMayCall(String namespaces, String caller, boolean clusterWide, boolean allowed) {
        Provider p = Provider.fromJson(manifest("{url: 'https://m/x', namespaces: " + namespaces + "}"), "test");
        String refusal = p.refusal(caller, clusterWide);
        if (allowed) {
            assertThat(refusal, is(nullValue()));
        } else {
            assertThat(refusal, equalTo("Provider mirror does not serve rules in namespace " + caller
                    + " (its spec.namespaces)"));
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            500ms   | 500000000
            2s      | 2000000000
            1m      | 60000000000
            1h      | 3600000000000
            1.5s    | 1500000000
            1m30s   | 90000000000
            10us    | 10000
            0       | 0
            """)
    void goDurations(String text, long nanos) {
        assertThat(Provider.parseDuration(text), equalTo(Duration.ofNanos(nanos)));
    }

    @ParameterizedTest
    @CsvSource({"''", "2", "s", "1d", "-1s", "1 s", "1.s2", "s1"})
    void notGoDurations(String text) {
        assertThat(Provider.parseDuration(text), is(nullValue()));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            {}                                            | spec.url           | required
            {url: 'http://m/x'}                           | spec.url           | only https:// URLs are allowed
            {url: 'https://u:p@m/x'}                      | spec.url           | credentials
            {url: 'https:///x'}                           | spec.url           | no host
            {url: 'https://m/x', timeout: 0s}             | spec.timeout       | expected more than 0 and at most 3s
            {url: 'https://m/x', timeout: 3001ms}         | spec.timeout       | at most 3s
            {url: 'https://m/x', timeout: soon}           | spec.timeout       | expected a duration
            {url: 'https://m/x', cacheTTL: 500ms}         | spec.cacheTTL      | expected at least 1s and at most 24h
            {url: 'https://m/x', cacheTTL: 25h}           | spec.cacheTTL      | at most 24h
            {url: 'https://m/x', maxEntries: 0}           | spec.maxEntries    | from 1 to 100000
            {url: 'https://m/x', maxEntries: 100001}      | spec.maxEntries    | from 1 to 100000
            {url: 'https://m/x', maxEntries: 1.5}         | spec.maxEntries    | integer
            {url: 'https://m/x', failurePolicy: Maybe}    | spec.failurePolicy | expected Fail or Ignore
            {url: 'https://m/x', caBundle: '***'}         | spec.caBundle      | not base64
            {url: 'https://m/x', caBundle: aGVsbG8=}      | spec.caBundle      | BEGIN CERTIFICATE
            {url: 'https://m/x', port: 1}                 | spec.port          | unknown field
            {url: 'https://m/x', namespaces: a}           | spec.namespaces    | expected a list of namespace names
            {url: 'https://m/x', namespaces: [a, 1]}      | spec.namespaces[1] | expected a namespace name, got 1
            {url: 'https://m/x', namespaces: [Team]}      | spec.namespaces[0] | expected a namespace name
            {url: 'https://m/x', namespaces: [a.b]}       | spec.namespaces[0] | expected a namespace name
            {url: 'https://m/x', namespaces: ['-a']}      | spec.namespaces[0] | expected a namespace name
            {url: 'https://m/x', namespaces: ['']}        | spec.namespaces[0] | expected a namespace name
            {url: 'https://m/x', namespaces: ['a*']}      | spec.namespaces[0] | expected a namespace name
            {url: 'https://m/x', namespaces: [a, '*']}    | spec.namespaces[1] | must be alone
            {url: 'https://m/x', namespaces: ['*', a]}    | spec.namespaces[0] | must be alone
            {url: 'https://m/x', namespaces: [a, a]}      | spec.namespaces[1] | listed twice
            """)
    void refusedWithTheField(String spec, String field, String why) {
        var e = assertThrows(ModRuleException.class, () -> Provider.fromJson(manifest(spec), "Provider mirror"));
        assertThat(e.field(), equalTo(field));
        assertThat(e.getMessage(), containsString(why));
        assertThat(e.getMessage(), containsString("Provider mirror"));
    }

    @Test
    void brokenCertificate() {
        String pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        String bundle = Base64.getEncoder().encodeToString(pem.getBytes());
        var e = assertThrows(ModRuleException.class, () -> Provider.fromJson(
                manifest("{url: 'https://m/x', caBundle: " + bundle + "}"), "test"));
        assertThat(e.field(), equalTo("spec.caBundle"));
    }

    @Test
    void aProviderIsHttpsWhoeverBuildsIt() {
        assertThrows(IllegalArgumentException.class, () -> new Provider("p", URI.create("http://m/x"),
                java.util.List.of(), Duration.ofSeconds(1), Duration.ofMinutes(1), 1, Provider.FailurePolicy.Fail,
                java.util.List.of()));
    }

    @Test
    void nameIsAKubernetesName() {
        var e = assertThrows(ModRuleException.class, () -> Provider.fromJson((JsonObject) YamlJson.parse(
                "{apiVersion: remold.io/v1beta1, kind: Provider, metadata: {name: 'My\\\"x'}, spec: {url: 'https://m'}}",
                "t").getFirst(), "t"));
        assertThat(e.field(), equalTo("metadata.name"));
    }

    @Test
    void nameRequired() {
        var e = assertThrows(ModRuleException.class, () -> Provider.fromJson((JsonObject) YamlJson.parse(
                "{apiVersion: remold.io/v1beta1, kind: Provider, spec: {url: 'https://m'}}", "t").getFirst(), "t"));
        assertThat(e.field(), equalTo("metadata.name"));
    }

    @Test
    void theCrdSchemaHasTheSameFieldsAndBounds() throws java.io.IOException {
        JsonObject crd;
        try (var in = ProviderTest.class.getResourceAsStream("/io/remold/api/crd/providers.remold.io.yaml")) {
            crd = (JsonObject) YamlJson.parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8),
                    "crd").getFirst();
        }
        assertThat(crd.getJsonObject("spec").getString("scope"), equalTo("Cluster"));
        JsonObject spec = crd.getJsonObject("spec").getJsonArray("versions").getJsonObject(0).getJsonObject("schema")
                .getJsonObject("openAPIV3Schema").getJsonObject("properties").getJsonObject("spec");
        JsonObject props = spec.getJsonObject("properties");
        assertThat(new java.util.TreeSet<>(props.keySet()), equalTo(new java.util.TreeSet<>(java.util.List.of("url",
                "caBundle", "timeout", "cacheTTL", "maxEntries", "failurePolicy", "namespaces"))));
        assertThat(spec.getJsonArray("required").getString(0), equalTo("url"));
        assertThat(props.getJsonObject("maxEntries").getInt("minimum"), equalTo(1));
        assertThat(props.getJsonObject("maxEntries").getInt("maximum"), equalTo(Provider.MAX_MAX_ENTRIES));
        assertThat(props.getJsonObject("failurePolicy").getJsonArray("enum").getValuesAs(jakarta.json.JsonString.class)
                .stream().map(jakarta.json.JsonString::getString).toList(), equalTo(java.util.Arrays.stream(
                Provider.FailurePolicy.values()).map(Enum::name).toList()));
        java.util.regex.Pattern namespace = java.util.regex.Pattern.compile(props.getJsonObject("namespaces")
                .getJsonObject("items").getString("pattern"));
        for (String name : java.util.List.of("*", "a", "team-a", "b2", "Team", "a.b", "-a", "", "a*", "**")) {
            assertThat(name, namespace.matcher(name).find(), is(name.equals("*")
                    || name.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")));
        }
        java.util.regex.Pattern duration = java.util.regex.Pattern.compile(
                props.getJsonObject("timeout").getString("pattern"));
        for (String text : java.util.List.of("500ms", "2s", "1m30s", "1.5h")) {
            assertThat(text, duration.matcher(text).find(), is(Provider.parseDuration(text) != null));
        }
    }
}

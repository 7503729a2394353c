package io.remold.kinitiras.template;

import io.remold.api.YamlJson;
import io.remold.kinitiras.PolicyEvaluationException;
import jakarta.json.JsonObject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** kinitiras's {@code parseAndGetRefValue} (utils/cue/params.go): the keys of a reference, from the object. */
class ReferenceKeysTest {
    private static final JsonObject POD = yaml("""
            metadata: {name: web, namespace: shop, labels: {app: web}, annotations: {n: '1'}}
            spec: {replicas: 3, x: null}
            """);

    private static JsonObject yaml(String text) {
        return YamlJson.parse(text, "test").getFirst().asJsonObject();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "<none>", value = {
            "web                          | web",
            "{{metadata.name}}            | web",
            "app-{{metadata.labels.app}}-x | app-web-x",
            "{{metadata.labels.missing}}  | <none>",
            "{{nothing.at.all}}           | <none>",
            // leftmost-longest, as kinitiras's POSIX pattern: one key from the first {{ to the last }}
            "{{metadata.name}}/{{metadata.namespace}} | <none>",
    })
    void replacesTheKeyFromTheObject(String text, String expected) throws PolicyEvaluationException {
        assertThat(ReferenceKeys.replace(text, POD), is(Optional.ofNullable(expected)));
    }

    @Test
    void aKeyEndsOnItsLine() throws PolicyEvaluationException {
        assertThat(ReferenceKeys.replace("{{metadata.name\n}}", POD), is(Optional.of("{{metadata.name\n}}")));
        assertThat(ReferenceKeys.replace("{{a\n{{metadata.name}}}}", POD), is(Optional.empty()));
        assertThat(ReferenceKeys.replace("{{a\nx-{{metadata.name}}", POD), is(Optional.of("{{a\nx-web")));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{{}}                | invalid ref key {{}}",
            "{{spec.replicas}}   | ref key spec.replicas: the value is not a string",
            "{{spec.x}}          | ref key spec.x: the value is not a string",
            "{{metadata.name.a}} | ref key metadata.name.a: a is not in an object",
    })
    void failsThePolicyOnAKeyThatIsNotAString(String text, String message) {
        var e = assertThrows(PolicyEvaluationException.class, () -> ReferenceKeys.replace(text, POD));
        assertThat(e.getMessage(), is(message));
    }

    @Test
    void rendersASelectorsNameNamespaceAndLabelValues() throws PolicyEvaluationException {
        assertThat(ReferenceKeys.k8s(yaml("""
                apiVersion: apps/v1
                kind: Deployment
                namespace: '{{metadata.namespace}}'
                labelSelector:
                  matchLabels: {app: '{{metadata.labels.app}}'}
                  matchExpressions: [{key: tier, operator: In, values: ['{{metadata.name}}', front]}]
                """), POD), is(Optional.of(yaml("""
                apiVersion: apps/v1
                kind: Deployment
                namespace: shop
                labelSelector:
                  matchLabels: {app: web}
                  matchExpressions: [{key: tier, operator: In, values: [web, front]}]
                """))));
        assertThat(ReferenceKeys.k8s(yaml("{kind: Deployment, name: '{{metadata.annotations.id}}'}"), POD),
                is(Optional.empty()));
    }

    @Test
    void rendersAnHttpReferencesUrlAndParams() throws PolicyEvaluationException {
        assertThat(ReferenceKeys.http(yaml("{url: 'https://x/{{metadata.namespace}}', params: {n: '{{metadata.name}}'}}"),
                POD), is(Optional.of(yaml("{url: 'https://x/shop', params: {n: web}}"))));
        assertThat(ReferenceKeys.http(yaml("{url: 'https://x', params: {n: '{{metadata.uid}}'}}"), POD),
                is(Optional.empty()));
    }
}

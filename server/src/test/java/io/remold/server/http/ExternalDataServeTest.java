package io.remold.server.http;

import io.remold.api.AdmissionOperation;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.server.external.TestProvider;
import io.remold.server.rules.RuleFolder;
import io.remold.server.rules.RuleStore;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/**
 * {@code serve --rules}: a Provider in a rule file answers the {@code external} calls of a ModRule over HTTPS, for the
 * rules of the namespaces its {@code spec.namespaces} names only.
 */
class ExternalDataServeTest {
    @TempDir
    Path dir;

    @Test
    void aRuleFilesProviderAnswersTemplates() throws IOException {
        try (var provider = new TestProvider(dir.resolve("tls"));
             var store = new RuleStore("remold-system")) {
            Path rules = Files.createDirectories(dir.resolve("rules"));
            Files.writeString(rules.resolve("mirror.yaml"), """
                    apiVersion: remold.io/v1beta1
                    kind: Provider
                    metadata: {name: registry-mirror}
                    spec: {url: '%s', caBundle: %s, timeout: 2s, namespaces: [shop]}
                    """.formatted(provider.url("good"), provider.caBundle));
            for (String namespace : new String[] {"shop", "other"}) {
                Files.writeString(rules.resolve("mirror-" + namespace + ".yaml"), """
                        apiVersion: remold.io/v1beta1
                        kind: ModRule
                        metadata: {name: mirror-images, namespace: %s}
                        spec:
                          type: Patch
                          match:
                          - {select: '$.kind', matchValue: Pod}
                          patch:
                          - op: replace
                            select: '$.spec.containers[*]'
                            path: /spec/containers/#0/image
                            value: '{{ external "registry-mirror" SelectedItem.image }}'
                        """.formatted(namespace));
            }
            new RuleFolder(rules, store).scan();
            store.synced();
            JsonObject pod;
            try (var reader = AdmissionReview.JSON.createReader(new StringReader("{\"apiVersion\":\"v1\","
                    + "\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\",\"namespace\":\"shop\"},"
                    + "\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx:1.25\"}]}}"))) {
                pod = reader.readObject();
            }
            for (int i = 0; i < 2; i++) {
                Decision decision = store.engine().mutate(new AdmissionRequest(AdmissionOperation.CREATE, "shop",
                        pod, null, null, null, false));
                assertThat(decision.patch().toString(), containsString("\"value-of-nginx:1.25\""));
            }
            assertThat("asked once, then cached", provider.asked("nginx:1.25"), is(1));
            Decision refused = store.engine().mutate(new AdmissionRequest(AdmissionOperation.CREATE, "other",
                    pod, null, null, null, false));
            assertThat(refused.patch().toString(), is("[]"));
            assertThat(refused.outcomes().getFirst().error(), containsString("Provider registry-mirror does not"
                    + " serve rules in namespace other (its spec.namespaces)"));
            assertThat("refused without a call", provider.asked("nginx:1.25"), is(1));
        }
    }
}

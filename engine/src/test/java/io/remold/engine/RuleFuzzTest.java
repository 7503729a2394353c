package io.remold.engine;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.remold.api.AdmissionOperation;
import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.ModRules;
import jakarta.json.JsonValue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.remold.engine.TestJson.json;

/**
 * Fuzzes what a rule author writes: ModRule YAML (refused only with {@link ModRuleException}) compiled by the engine
 * (problems are reported, never thrown) and run, with its JSONPaths, templates and patches, on a Deployment and on
 * its update. Seeds: the ModRules of the KubeMod corpus and of examples/.
 */
class RuleFuzzTest {
    private static final JsonValue DEPLOYMENT = json("""
            {'apiVersion': 'apps/v1', 'kind': 'Deployment',
             'metadata': {'name': 'web', 'namespace': 'shop', 'labels': {'app': 'web', 'color': 'blue'}},
             'spec': {'replicas': 3, 'template': {'metadata': {'labels': {'app': 'web'}}, 'spec': {
                'containers': [{'name': 'app', 'image': 'docker.io/nginx:latest', 'ports': [{'containerPort': 80}]},
                               {'name': 'side', 'image': 'busybox', 'args': ['-v', '2']}],
                'externalIPs': ['123.12.34.1']}}}}
            """);
    private static final JsonValue NAMESPACE = json("{'metadata': {'name': 'shop', 'labels': {'team': 'a'}}}");

    @FuzzTest
    void compileAndRun(byte[] input) {
        List<ModRule> rules;
        try {
            rules = ModRules.parse(new String(input, StandardCharsets.UTF_8), "fuzz");
        } catch (ModRuleException e) {
            return;
        }
        rules.forEach(Engine::compile);
        Engine engine = Engine.builder().rules(rules).build();
        for (ModRule rule : rules) {
            // In the rule's own namespace, so that it applies (a cluster-wide rule's reach is its regex).
            String namespace = rule.namespace() == null ? "shop" : rule.namespace();
            for (AdmissionOperation operation : AdmissionOperation.values()) {
                var request = new AdmissionRequest(operation, namespace,
                        operation == AdmissionOperation.DELETE ? null : DEPLOYMENT,
                        operation == AdmissionOperation.CREATE ? null : DEPLOYMENT, NAMESPACE, null, true);
                Decision mutated = engine.mutate(request);
                engine.validate(new AdmissionRequest(operation, namespace, mutated.result(), request.oldObject(),
                        NAMESPACE, null, true));
            }
        }
    }
}

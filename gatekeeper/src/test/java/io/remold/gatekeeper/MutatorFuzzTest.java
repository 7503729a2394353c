package io.remold.gatekeeper;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.remold.api.AdmissionOperation;
import io.remold.api.ModRuleException;
import io.remold.api.YamlJson;
import io.remold.engine.AdmissionRequest;
import io.remold.engine.Engine;
import io.remold.gatekeeper.mutators.InvalidMutatorException;
import io.remold.gatekeeper.mutators.Mutable;
import io.remold.gatekeeper.mutators.MutationException;
import io.remold.gatekeeper.mutators.Mutator;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes mutator manifests (YAML, one or more documents): {@link Gatekeeper#parse} refuses only with {@link
 * InvalidMutatorException}; a mutator then matches and mutates a Pod and a Deployment, failing only with {@link
 * MutationException}; and the whole set runs as the engine's stage, which never throws. Seeds: the mutator manifests of
 * Gatekeeper's conformance corpus and of examples/gatekeeper.
 */
class MutatorFuzzTest {
    private static final List<JsonObject> OBJECTS = List.of(object("""
            apiVersion: v1
            kind: Pod
            metadata: {name: web, namespace: shop, labels: {app: web}, annotations: {a: b}}
            spec:
              containers:
                - {name: app, image: 'docker.io/nginx:1.27', ports: [{containerPort: 80, protocol: TCP}], args: [a, b]}
                - {name: side, image: 'busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'}
            """), object("""
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web, namespace: shop}
            spec: {replicas: 2, template: {spec: {containers: [{name: app, image: nginx}]}}}
            """));
    private static final JsonObject NAMESPACE = object("{metadata: {name: shop, labels: {team: shop}}}");

    @FuzzTest
    void parseAndMutate(byte[] input) {
        List<JsonValue> documents;
        try {
            documents = YamlJson.parse(new String(input, StandardCharsets.UTF_8), "fuzz");
        } catch (ModRuleException e) {
            return;
        }
        var mutators = new ArrayList<Mutator>();
        for (JsonValue document : documents) {
            if (document instanceof JsonObject manifest) {
                try {
                    mutators.add(Gatekeeper.parse(manifest));
                } catch (InvalidMutatorException e) {
                    // documented
                }
            }
        }
        for (Mutator mutator : mutators) {
            for (JsonObject object : OBJECTS) {
                try {
                    var mutable = new Mutable(object, NAMESPACE, "", null, "CREATE");
                    mutator.matches(mutable);
                    mutator.mutate(mutable);
                } catch (MutationException e) {
                    // documented
                }
            }
        }
        Gatekeeper.conflicts(mutators);
        Engine engine = Engine.builder().stage(Gatekeeper.stage(mutators)).build();
        for (JsonObject object : OBJECTS) {
            engine.mutate(new AdmissionRequest(AdmissionOperation.CREATE, "shop", object, null, NAMESPACE, null, true));
        }
    }

    private static JsonObject object(String yaml) {
        return (JsonObject) YamlJson.parse(yaml, "test").getFirst();
    }
}

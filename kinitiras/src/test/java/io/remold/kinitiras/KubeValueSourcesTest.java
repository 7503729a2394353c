package io.remold.kinitiras;

import io.remold.api.Reference;
import io.remold.engine.ReferenceException;
import io.remold.engine.ReferenceQuery;
import io.remold.engine.ReferenceResolver;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code valueRef} sources: {@code k8s} with ModRules' reference scope, {@code http} as the owner answers it. */
class KubeValueSourcesTest {
    private static final JsonValue CONFIG = Cases.yaml("{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}");
    private final List<ReferenceQuery> queries = new ArrayList<>();
    private final ReferenceResolver resolver = query -> {
        queries.add(query);
        if (query.kind().equals("Node") && !query.clusterWide()) {
            throw new ReferenceException("nodes are cluster-scoped");
        }
        return new ReferenceResolver.Resolution(CONFIG, "test");
    };

    private static Policy policy(Policy.Kind kind, String namespace) {
        return new Policy(kind, namespace, "p", List.of(), List.of(), List.of());
    }

    @Test
    void aNamespacedPolicyReadsItsOwnNamespace() throws PolicyEvaluationException {
        var sources = new KubeValueSources(resolver, policy(Policy.Kind.OverridePolicy, "team"), HttpAnswers.REFUSED);
        assertThat(sources.kube(Cases.yaml("{apiVersion: v1, kind: ConfigMap, name: c}")), is(CONFIG));
        assertThat(queries.get(0), is(new ReferenceQuery("OverridePolicy/team/p", "valueRef", "v1", "ConfigMap",
                "team", "c", null, false)));
        var e = assertThrows(PolicyEvaluationException.class,
                () -> sources.kube(Cases.yaml("{apiVersion: v1, kind: ConfigMap, namespace: other, name: c}")));
        assertThat(e.getMessage(), is("valueRef.k8s.namespace: OverridePolicy/team/p may read only its own namespace"
                + " team"));
    }

    @Test
    void aClusterPolicyReadsAnyNamespaceAndSelectsByLabels() throws PolicyEvaluationException {
        var sources = new KubeValueSources(resolver, policy(Policy.Kind.ClusterOverridePolicy, null), HttpAnswers.REFUSED);
        sources.kube(Cases.yaml("{apiVersion: v1, kind: ConfigMap, namespace: other, labelSelector: {matchLabels: {a: b}}}"));
        assertThat(queries.get(0), is(new ReferenceQuery("ClusterOverridePolicy/p", "valueRef", "v1", "ConfigMap",
                "other", null, new Reference.Selector(Map.of("a", "b"), List.of()), true)));
    }

    @Test
    void whatTheSourceRefusesFailsThePolicy() {
        var sources = new KubeValueSources(resolver, policy(Policy.Kind.OverridePolicy, "team"), HttpAnswers.REFUSED);
        var e = assertThrows(PolicyEvaluationException.class,
                () -> sources.kube(Cases.yaml("{apiVersion: v1, kind: Node, name: n}")));
        assertThat(e.getMessage(), is("valueRef.k8s v1 Node team/n: nodes are cluster-scoped"));
    }

    @Test
    void httpIsRefusedUntilAnAdministratorCanAllowIt() {
        var sources = new KubeValueSources(resolver, policy(Policy.Kind.ClusterOverridePolicy, null), HttpAnswers.REFUSED);
        var e = assertThrows(PolicyEvaluationException.class,
                () -> sources.http(Cases.yaml("{url: 'http://example.com'}")));
        assertThat(e.getMessage(), is("http valueRef needs --allow-http-ref (not available yet)"));
    }

    @Test
    void httpIsAnsweredByTheFamilysOwner() throws PolicyEvaluationException {
        var asked = new ArrayList<JsonValue>();
        var sources = new KubeValueSources(resolver, policy(Policy.Kind.ClusterOverridePolicy, null), reference -> {
            asked.add(reference);
            return CONFIG;
        });
        assertThat(sources.http(Cases.yaml("{url: 'http://example.com'}")), is(CONFIG));
        assertThat(asked, is(List.of(Cases.yaml("{url: 'http://example.com'}"))));
    }
}

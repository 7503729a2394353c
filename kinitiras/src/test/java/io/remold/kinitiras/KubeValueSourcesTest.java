package io.remold.kinitiras;

import io.remold.api.AllowedUrls;
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
        return new Policy(kind, namespace, "p", List.of(), List.of(), List.of(), List.of());
    }

    @Test
    void aNamespacedPolicyReadsItsOwnNamespace() throws PolicyEvaluationException {
        var sources = new KubeValueSources(resolver, policy(Policy.Kind.OverridePolicy, "team"),
                HttpAnswers.REFUSED, Long.MAX_VALUE);
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
        var sources = new KubeValueSources(resolver, policy(Policy.Kind.ClusterOverridePolicy, null),
                HttpAnswers.REFUSED, Long.MAX_VALUE);
        sources.kube(Cases.yaml("{apiVersion: v1, kind: ConfigMap, namespace: other, labelSelector: {matchLabels: {a: b}}}"));
        assertThat(queries.get(0), is(new ReferenceQuery("ClusterOverridePolicy/p", "valueRef", "v1", "ConfigMap",
                "other", null, new Reference.Selector(Map.of("a", "b"), List.of()), true)));
    }

    @Test
    void whatTheSourceRefusesFailsThePolicy() {
        var sources = new KubeValueSources(resolver, policy(Policy.Kind.OverridePolicy, "team"),
                HttpAnswers.REFUSED, Long.MAX_VALUE);
        var e = assertThrows(PolicyEvaluationException.class,
                () -> sources.kube(Cases.yaml("{apiVersion: v1, kind: Node, name: n}")));
        assertThat(e.getMessage(), is("valueRef.k8s v1 Node team/n: nodes are cluster-scoped"));
    }

    @Test
    void httpIsRefusedWhenNoPrefixIsAllowed() {
        var sources = new KubeValueSources(resolver, policy(Policy.Kind.ClusterOverridePolicy, null),
                HttpAnswers.REFUSED, Long.MAX_VALUE);
        var e = assertThrows(PolicyEvaluationException.class,
                () -> sources.http(Cases.yaml("{url: 'http://example.com'}")));
        assertThat(e.getMessage(), is(AllowedUrls.NONE_ALLOWED));
    }

    /** The owner answers the call as kinitiras makes it (params encoded as Go's, a token), for an allowed URL only. */
    @Test
    void httpIsAnsweredByTheFamilysOwnerUnderAnAllowedPrefixOnly() throws PolicyEvaluationException {
        var asked = new ArrayList<HttpCall>();
        var answers = new HttpAnswers() {
            @Override
            public AllowedUrls allowed() {
                return AllowedUrls.parse(List.of("http://config.team.svc/api"));
            }

            @Override
            public JsonValue answer(HttpCall call, long deadlineNanos) {
                asked.add(call);
                return CONFIG;
            }
        };
        var sources = new KubeValueSources(resolver, policy(Policy.Kind.ClusterOverridePolicy, null), answers, 7);
        assertThat(sources.http(Cases.yaml("{url: 'http://config.team.svc/api/v1', method: post,"
                + " params: {b: 'x y', a: 'é~*'}, header: {X-Team: t}, body: {k: [1]}, auth: {staticToken: s}}")),
                is(CONFIG));
        HttpCall call = asked.getFirst();
        assertThat(call.url().toString(), is("http://config.team.svc/api/v1?a=%C3%A9~%2A&b=x+y"));
        assertThat(call.written(), is("http://config.team.svc/api/v1"));
        assertThat(call.method(), is("POST"));
        assertThat(call.headers(), is(Map.of("X-Team", "t", "Authorization", "Bearer s")));
        assertThat(call.body(), is(java.util.Optional.of("{\"k\":[1]}")));

        var e = assertThrows(PolicyEvaluationException.class,
                () -> sources.http(Cases.yaml("{url: 'http://config.team.svc/apix'}")));
        assertThat(e.getMessage(), is("http valueRef http://config.team.svc/apix: not under a URL prefix the server"
                + " allows (--allow-http-ref http://config.team.svc/api)"));
        assertThat(asked.size(), is(1));
    }
}

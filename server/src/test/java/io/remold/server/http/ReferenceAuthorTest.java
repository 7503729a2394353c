package io.remold.server.http;

import io.remold.engine.ReferenceQuery;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import io.remold.server.rules.ReferenceSource;
import io.remold.server.rules.Requester;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/**
 * F12 over HTTPS: /validate-modrule refuses a ModRule, or another family's rule (a kinitiras policy's {@code k8s}
 * valueRef), whose author may not read what it references, as the cluster's reference source answers for the
 * request's userInfo (the access reviews themselves: ClusterReferencesTest).
 */
class ReferenceAuthorTest {
    @TempDir
    Path dir;
    TestServer server;
    /** What the source was asked: {@code user namespace apiVersion kind}. */
    final List<String> asked = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        server = new TestServer(dir, 1 << 20, ClusterRefs.NONE, BindingListener.NONE);
        server.store.references(new ReferenceSource() {
            @Override
            public void use(Set<String> kinds) {
            }

            @Override
            public Optional<String> refusal(String apiVersion, String kind, boolean clusterWide) {
                return Optional.empty();
            }

            @Override
            public Optional<String> unreadable(Requester author, String namespace, String apiVersion, String kind) {
                asked.add(author.user() + " " + author.groups() + " " + namespace + " " + apiVersion + " " + kind);
                return kind.equals("Secret") && !author.groups().contains("secret-readers")
                        ? Optional.of("user \"" + author.user() + "\" may not get secrets in namespace " + namespace)
                        : Optional.empty();
            }

            @Override
            public Resolution resolve(ReferenceQuery query) {
                return new Resolution(null, "test");
            }
        });
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** The review of F12's rule {@code team-a/peek}, which shows a Secret's value in its message, by this user. */
    static String peek(String namespace, String groups) {
        String spec = "{\"type\":\"Reject\",\"references\":[{\"name\":\"s\",\"apiVersion\":\"v1\",\"kind\":\"Secret\","
                + "\"objectName\":\"db\",\"onMissing\":\"fail\"}],\"match\":[{\"select\":\"$.kind\",\"matchValue\":"
                + "\"ConfigMap\"}],\"rejectMessage\":\"password is {{ References.s.data.password | b64dec }}\"}";
        return WebhookServerTest.modRule(spec).replace("\"namespace\":\"team-a\"", "\"namespace\":\"" + namespace + "\"")
                .replace("\"operation\":\"CREATE\"", "\"operation\":\"CREATE\",\"userInfo\":{\"username\":\"alice\","
                        + "\"uid\":\"u-1\",\"groups\":" + groups + "}");
    }

    @Test
    void aRuleReferencingWhatItsAuthorMayNotReadIsRefusedWith422NamingTheReference() {
        JsonObject refused = WebhookServerTest.response(server.post("/validate-modrule", "application/json",
                peek("team-a", "[\"team-a-devs\"]")));
        assertThat(refused.getBoolean("allowed"), is(false));
        assertThat(refused.getJsonObject("status").getInt("code"), is(422));
        assertThat(refused.getJsonObject("status").getString("message"), is("ModRule team-a/r1 is invalid: "
                + "spec.references[0]: user \"alice\" may not get secrets in namespace team-a"));
        assertThat(asked, is(List.of("alice [team-a-devs] team-a v1 Secret")));

        JsonObject admitted = WebhookServerTest.response(server.post("/validate-modrule", "application/json",
                peek("team-a", "[\"team-a-devs\",\"secret-readers\"]")));
        assertThat(admitted.getBoolean("allowed"), is(true));
    }

    @Test
    void aRuleInTheSystemNamespaceNeedsItsAuthorToReadEveryNamespace() {
        WebhookServerTest.response(server.post("/validate-modrule", "application/json",
                peek("remold-system", "[\"admins\"]")));
        assertThat(asked, is(List.of("alice [admins]  v1 Secret")));
    }

    /** The review of a kinitiras policy whose template reads Secret {@code db} ({@code metadata} as given), by alice. */
    static String peekPolicy(String kind, String metadata, String groups) {
        String policy = "{\"apiVersion\":\"policy.kcloudlabs.io/v1alpha1\",\"kind\":\"" + kind + "\",\"metadata\":"
                + metadata + ",\"spec\":{\"overrideRules\":[{\"overriders\":{\"template\":{\"type\":\"annotations\","
                + "\"operation\":\"replace\",\"path\":\"password\",\"valueRef\":{\"from\":\"k8s\","
                + "\"path\":\"/data/password\",\"k8s\":{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"name\":\"db\"}}}}}]}}";
        return "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"p1\","
                + "\"operation\":\"CREATE\",\"namespace\":\"team-a\",\"userInfo\":{\"username\":\"alice\",\"uid\":\"u-1\","
                + "\"groups\":" + groups + "},\"object\":" + policy + "}}";
    }

    @Test
    void aKinitirasPolicyReadingWhatItsAuthorMayNotReadIsRefusedLikeAModRule() {
        JsonObject refused = WebhookServerTest.response(server.post("/validate-modrule", "application/json",
                peekPolicy("OverridePolicy", "{\"name\":\"peek\",\"namespace\":\"team-a\"}", "[\"team-a-devs\"]")));
        assertThat(refused.getBoolean("allowed"), is(false));
        assertThat(refused.getJsonObject("status").getInt("code"), is(422));
        assertThat(refused.getJsonObject("status").getString("message"), is("OverridePolicy team-a/peek is invalid: "
                + "OverridePolicy/team-a/peek reads v1 Secret: user \"alice\" may not get secrets in namespace team-a"));

        JsonObject admitted = WebhookServerTest.response(server.post("/validate-modrule", "application/json",
                peekPolicy("OverridePolicy", "{\"name\":\"peek\",\"namespace\":\"team-a\"}",
                        "[\"team-a-devs\",\"secret-readers\"]")));
        assertThat(admitted.getBoolean("allowed"), is(true));

        WebhookServerTest.response(server.post("/validate-modrule", "application/json",
                peekPolicy("ClusterOverridePolicy", "{\"name\":\"peek\"}", "[\"admins\"]")));
        assertThat(asked, is(List.of("alice [team-a-devs] team-a v1 Secret",
                "alice [team-a-devs, secret-readers] team-a v1 Secret", "alice [admins]  v1 Secret")));
    }

    @Test
    void userInfoThatIsNotAnAuthenticatedUserIsABadRequest() {
        var http = server.post("/validate-modrule", "application/json", peek("team-a", "\"admins\""));
        assertThat(http.statusCode(), is(400));
    }
}

package io.remold.server.http;

import io.remold.kinitiras.template.OverrideTemplate;
import io.remold.kinitiras.template.ValidateTemplate;
import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;

import static io.remold.server.http.WebhookServerTest.response;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

/**
 * {@code /mutate-rule} over HTTPS: a kinitiras policy admitted gets each template's {@code renderedCue}, as
 * kinitiras's policy webhook writes it; a rule without a template keeps what it was given; an UPDATE that leaves
 * the spec alone writes nothing; a template that cannot render is refused with its field.
 */
class RenderedCueAdmissionTest {
    private static final String ANNOTATE = "{\"type\":\"annotations\",\"operation\":\"replace\",\"path\":\"team\","
            + "\"value\":{\"string\":\"a\"}}";
    private static final String OVERRIDE_SPEC = "{\"resourceSelectors\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}],"
            + "\"overrideRules\":[{\"overriders\":{\"renderedCue\":\"kept: 1\"}},"
            + "{\"overriders\":{\"template\":" + ANNOTATE + "}}]}";

    @TempDir
    Path dir;
    TestServer server;

    @BeforeEach
    void start() {
        server = new TestServer(dir, 1 << 20, ClusterRefs.NONE, BindingListener.NONE);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static String policy(String kind, String spec) {
        return "{\"apiVersion\":\"policy.kcloudlabs.io/v1alpha1\",\"kind\":\"" + kind
                + "\",\"metadata\":{\"name\":\"p1\"},\"spec\":" + spec + "}";
    }

    private static String review(String operation, String object, String oldObject) {
        return "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u1\","
                + "\"kind\":{\"group\":\"policy.kcloudlabs.io\",\"version\":\"v1alpha1\",\"kind\":\"Policy\"},"
                + "\"resource\":{\"group\":\"policy.kcloudlabs.io\",\"version\":\"v1alpha1\","
                + "\"resource\":\"clusteroverridepolicies\"},"
                + "\"name\":\"p1\",\"operation\":\"" + operation + "\",\"object\":" + object
                + (oldObject == null ? "" : ",\"oldObject\":" + oldObject) + "}}";
    }

    private static JsonArray patch(JsonObject response) {
        assertThat(response.getBoolean("allowed"), is(true));
        assertThat(response.getString("patchType"), is("JSONPatch"));
        String text = new String(Base64.getDecoder().decode(response.getString("patch")), StandardCharsets.UTF_8);
        try (var reader = AdmissionReview.JSON.createReader(new StringReader(text))) {
            return reader.readArray();
        }
    }

    private static JsonObject json(String text) {
        try (var reader = AdmissionReview.JSON.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    private static JsonObject operation(String path, String value) {
        return AdmissionReview.JSON.createObjectBuilder().add("op", "add").add("path", path).add("value", value)
                .build();
    }

    @Test
    void eachTemplateGetsItsRenderedCueAndARuleWithoutOneKeepsItsOwn() {
        String cue = OverrideTemplate.parse(json(ANNOTATE), "template").renderedCue();
        JsonArray patch = patch(response(server.post("/mutate-rule", "application/json",
                review("CREATE", policy("ClusterOverridePolicy", OVERRIDE_SPEC), null))));
        assertThat(patch, is(AdmissionReview.JSON.createArrayBuilder()
                .add(operation("/spec/overrideRules/1/overriders/renderedCue", cue)).build()));
    }

    @Test
    void aValidateConditionWithoutAffectModeGetsRejectAsInKinitiras() {
        String template = "{\"type\":\"condition\",\"condition\":{\"cond\":\"NotExist\",\"message\":\"no team\","
                + "\"dataRef\":{\"from\":\"current\",\"path\":\"/metadata/labels/team\"}}}";
        String spec = "{\"resourceSelectors\":[{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}],"
                + "\"validateRules\":[{\"template\":" + template + "}]}";
        JsonArray patch = patch(response(server.post("/mutate-rule", "application/json",
                review("CREATE", policy("ClusterValidatePolicy", spec), null))));
        assertThat(patch, is(AdmissionReview.JSON.createArrayBuilder()
                .add(operation("/spec/validateRules/0/template/condition/affectMode", "reject"))
                .add(operation("/spec/validateRules/0/renderedCue",
                        ValidateTemplate.parse(json(template), "template").renderedCue())).build()));
    }

    @Test
    void anUpdateThatLeavesTheSpecAloneWritesNothing() {
        String object = policy("OverridePolicy", OVERRIDE_SPEC).replace("{\"name\":\"p1\"}",
                "{\"name\":\"p1\",\"namespace\":\"team-a\",\"labels\":{\"new\":\"label\"}}");
        String old = policy("OverridePolicy", OVERRIDE_SPEC).replace("{\"name\":\"p1\"}",
                "{\"name\":\"p1\",\"namespace\":\"team-a\"}");
        JsonObject response = response(server.post("/mutate-rule", "application/json",
                review("UPDATE", object, old)));
        assertThat(response.getBoolean("allowed"), is(true));
        assertThat(response.get("patch"), nullValue());
        JsonArray changed = patch(response(server.post("/mutate-rule", "application/json", review("UPDATE", object,
                old.replace("\"string\":\"a\"", "\"string\":\"b\"")))));
        assertThat(changed.size(), is(1));
    }

    @Test
    void aTemplateThatCannotRenderIsRefusedNamingTheField() {
        JsonObject refused = response(server.post("/mutate-rule", "application/json", review("CREATE",
                policy("ClusterOverridePolicy", "{\"overrideRules\":[{\"overriders\":{\"template\":"
                        + "{\"type\":\"sideways\",\"operation\":\"add\"}}}]}"), null)));
        assertThat(refused.getBoolean("allowed"), is(false));
        assertThat(refused.getJsonObject("status").getInt("code"), is(422));
        assertThat(refused.getJsonObject("status").getString("message"), is("ClusterOverridePolicy p1 is invalid: "
                + "spec.overrideRules[0].overriders.template.type: Unsupported value: \"sideways\": supported values: "
                + "[affinity, annotations, labels, resources, resourcesOversell, tolerations]"));
    }

    @Test
    void otherRulesAndDeletionsPassUnchanged() {
        JsonObject modRule = response(server.post("/mutate-rule", "application/json",
                WebhookServerTest.modRule("{\"type\":\"Patch\",\"match\":[{\"select\":\"$.kind\"}]}")));
        assertThat(modRule.getBoolean("allowed"), is(true));
        assertThat(modRule.get("patch"), nullValue());
        JsonObject deletion = response(server.post("/mutate-rule", "application/json",
                review("DELETE", policy("ClusterOverridePolicy", OVERRIDE_SPEC), null)));
        assertThat(deletion.getBoolean("allowed"), is(true));
        assertThat(deletion.get("patch"), nullValue());
    }
}

package io.remold.server.http;

import jakarta.json.JsonObject;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/** The response body, byte for byte, and that it reads back as the same values. */
class AdmissionResponseTest {
    private static final JsonProvider JSON = JsonProvider.provider();

    @Test
    void anAllowWithoutAnythingElse() {
        assertThat(new String(AdmissionReview.Response.allow("u-1").toJson(), StandardCharsets.UTF_8), equalTo(
                "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                        + "\"response\":{\"uid\":\"u-1\",\"allowed\":true}}"));
    }

    @Test
    void aPatchWithWarningsAndAuditAnnotations() {
        var patch = JSON.createArrayBuilder().add(JSON.createObjectBuilder().add("op", "add")
                .add("path", "/metadata/labels/a").add("value", "é\"")).build();
        var audit = new LinkedHashMap<String, String>();
        audit.put("patched-by", "team-a/one,team-a/two");
        audit.put("note", "line\nbreak");
        byte[] body = new AdmissionReview.Response("u-2", patch, List.of("first \"quoted\"", "second\ttab"), audit,
                null).toJson();
        JsonObject response = read(body).getJsonObject("response");
        assertThat(response.getBoolean("allowed"), equalTo(true));
        assertThat(response.getString("patchType"), equalTo("JSONPatch"));
        assertThat(new String(java.util.Base64.getDecoder().decode(response.getString("patch")),
                StandardCharsets.UTF_8),
                equalTo("[{\"op\":\"add\",\"path\":\"/metadata/labels/a\",\"value\":\"é\\\"\"}]"));
        assertThat(response.getJsonArray("warnings").getValuesAs(jakarta.json.JsonString::getString),
                equalTo(List.of("first \"quoted\"", "second\ttab")));
        assertThat(response.getJsonObject("auditAnnotations").toString(),
                equalTo("{\"patched-by\":\"team-a/one,team-a/two\",\"note\":\"line\\nbreak\"}"));
    }

    @Test
    void aDenial() {
        byte[] body = new AdmissionReview.Response("u-3", null, List.of(), Map.of("rejected-by", "ns/r"),
                new AdmissionReview.Response.Denial(403, "no \\ way")).toJson();
        assertThat(new String(body, StandardCharsets.UTF_8), equalTo(
                "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"u-3\","
                        + "\"allowed\":false,\"status\":{\"code\":403,\"message\":\"no \\\\ way\"},"
                        + "\"auditAnnotations\":{\"rejected-by\":\"ns/r\"}}}"));
        assertThat(read(body).getJsonObject("response").getJsonObject("status").getString("message"),
                equalTo("no \\ way"));
    }

    private static JsonObject read(byte[] body) {
        try (var reader = JSON.createReader(new ByteArrayInputStream(body))) {
            return reader.readObject();
        }
    }
}

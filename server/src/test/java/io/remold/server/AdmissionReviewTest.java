package io.remold.server;

import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.io.StringReader;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What the webhook reads of who made a request: {@code request.userInfo.username}, for Gatekeeper's Username. */
class AdmissionReviewTest {
    private static JsonValue review(String userInfo) {
        String text = """
                {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                 "request": {"uid": "u1", "operation": "CREATE", "kind": {"group": "", "kind": "Pod"}%s}}"""
                .formatted(userInfo);
        return JsonProvider.provider().createReader(new StringReader(text)).readValue();
    }

    @Test
    void readsTheRequestingUsersName() {
        assertThat(AdmissionReview.parse(review(", \"userInfo\": {\"username\": \"alice\", \"groups\": [\"dev\"]}"))
                .userName(), is("alice"));
        assertThat(AdmissionReview.parse(review("")).userName(), is(""));
    }

    @Test
    void aUsernameThatIsNotAStringIsBadInputNamingTheField() {
        var e = assertThrows(AdmissionReview.Invalid.class,
                () -> AdmissionReview.parse(review(", \"userInfo\": {\"username\": 7}")));
        assertThat(e.getMessage(), is("request.userInfo.username: expected a string"));
    }
}

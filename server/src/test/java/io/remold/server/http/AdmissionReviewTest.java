package io.remold.server.http;

import io.remold.server.rules.Requester;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.util.List;
import java.util.Map;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What the webhook reads of who made a request: {@code request.userInfo.username}, for Gatekeeper's Username, and
 * all of {@code userInfo} for access reviews, checked on every request and read only when asked.
 */
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

    @Test
    void readsTheRequesterWithGroupsUidAndExtra() {
        var review = AdmissionReview.parse(review(", \"userInfo\": {\"username\": \"alice\", \"uid\": \"u-1\", "
                + "\"groups\": [\"dev\", \"ops\"], \"extra\": {\"scopes\": [\"a\"], \"none\": null}}"));
        assertThat(review.requester(), is(new Requester("alice", List.of("dev", "ops"), "u-1",
                Map.of("scopes", List.of("a"), "none", List.of()))));
        assertThat(AdmissionReview.parse(review("")).requester(), is(Requester.NOBODY));
    }

    /** Every endpoint refuses these (each parses the review), not only the one that reads the requester. */
    @Test
    void userInfoWhoseGroupsUidOrExtraAreMalformedIsBadInputNamingTheField() {
        assertThat(refusal(", \"userInfo\": {\"username\": \"alice\", \"groups\": \"dev\"}"),
                is("request.userInfo.groups: expected an array of strings"));
        assertThat(refusal(", \"userInfo\": {\"groups\": [\"dev\", 7]}"),
                is("request.userInfo.groups: expected an array of strings"));
        assertThat(refusal(", \"userInfo\": {\"extra\": {\"scopes\": [\"a\", {}]}}"),
                is("request.userInfo.extra.scopes: expected an array of strings"));
        assertThat(refusal(", \"userInfo\": {\"uid\": 1}"), is("request.userInfo.uid: expected a string"));
    }

    private static String refusal(String userInfo) {
        return assertThrows(AdmissionReview.Invalid.class, () -> AdmissionReview.parse(review(userInfo))).getMessage();
    }
}

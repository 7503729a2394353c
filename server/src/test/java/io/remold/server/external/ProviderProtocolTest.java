package io.remold.server.external;

import jakarta.json.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Gatekeeper's ProviderRequest and ProviderResponse, as Remold writes and reads them. */
class ProviderProtocolTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theRequestIsGatekeepers() {
        assertThat(new String(ProviderProtocol.request(List.of("nginx:1.25", "a\"b")), StandardCharsets.UTF_8),
                equalTo("{\"apiVersion\":\"externaldata.gatekeeper.sh/v1beta1\",\"kind\":\"ProviderRequest\","
                        + "\"request\":{\"keys\":[\"nginx:1.25\",\"a\\\"b\"]}}"));
    }

    @Test
    void itemsGiveValuesOfAnyJsonOrErrors() throws Exception {
        var items = ProviderProtocol.response(bytes("{\"response\":{\"idempotent\":true,"
                + "\"items\":[{\"key\":\"a\",\"value\":{\"x\":[1]}},"
                + "{\"key\":\"b\",\"error\":\"unknown b\"},{\"key\":\"c\"},{\"key\":\"d\",\"value\":1,\"error\":\"\"}],"
                + "\"systemError\":\"\"}}"));
        assertThat(items.get("a").value(), equalTo(Json.createObjectBuilder().add("x", Json.createArrayBuilder()
                .add(1)).build()));
        assertThat(items.get("b").error(), equalTo("unknown b"));
        assertThat(items.get("b").value(), is(nullValue()));
        assertThat(items.get("c").value(), equalTo(jakarta.json.JsonValue.NULL));
        assertThat(items.get("d").value(), equalTo(Json.createValue(1)));
    }

    @Test
    void longErrorsAreShortened() throws Exception {
        String error = "e".repeat(10_000);
        var items = ProviderProtocol.response(bytes("{\"response\":{\"idempotent\":true,"
                + "\"items\":[{\"key\":\"a\",\"error\":\"" + error
                + "\"}]}}"));
        assertThat(items.get("a").error().length(), is(ProviderProtocol.MAX_ERROR_CHARS + 3));
        var refused = assertThrows(ProviderProtocol.Refused.class, () -> ProviderProtocol.response(bytes(
                "{\"response\":{\"systemError\":\"" + error + "\"}}")));
        assertThat(refused.getMessage().length(), is("provider's system error: ".length()
                + ProviderProtocol.MAX_ERROR_CHARS + 3));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            not json                                                    | malformed answer:
            []                                                          | malformed answer: expected a ProviderResponse
            {"response": 1}                                             | malformed answer: expected a ProviderResponse
            {"response": {"idempotent": true, "items": {}}}             | malformed answer: response.items is not a list
            {"response": {"idempotent": true, "items": [{"value": 1}]}} | malformed answer: response.items[0] has no
            {"response": {"systemError": "down"}}                       | provider's system error: down
            {"response": {"idempotent": false, "items": []}}            | the provider says its answers are not
            {"response": {"items": [{"key": "a", "value": 1}]}}         | the provider says its answers are not
            {"response": {"idempotent": "true", "items": []}}           | the provider says its answers are not
            66666666E6666666666666666666666666                          | malformed answer: a number out of range
            {"response": {"idempotent": true, "items": [{"key": "a", "value": 1E99999999999}]}} | malformed answer: a number out of range
            """)
    void unusableAnswersFailTheWholeCall(String body, String why) {
        var refused = assertThrows(ProviderProtocol.Refused.class, () -> ProviderProtocol.response(bytes(body)));
        assertThat(refused.getMessage(), startsWith(why));
    }
}

package io.remold.server;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Reading a body of announced length: whole, or refused when it ends early. */
class AdmissionEndpointsTest {
    @Test
    void aBodyOfTheAnnouncedLengthIsReadWhole() throws IOException {
        byte[] body = "{\"a\":1}".getBytes(StandardCharsets.US_ASCII);
        assertThat(AdmissionEndpoints.readExactly(new ByteArrayInputStream(body), body.length), is(body));
    }

    @Test
    void aBodyShorterThanItsContentLengthIsRefusedSayingHowMuchArrived() {
        var e = assertThrows(RuntimeException.class, () -> AdmissionEndpoints.readExactly(
                new ByteArrayInputStream("{\"a\":1}".getBytes(StandardCharsets.US_ASCII)), 100));
        assertThat(e.getMessage(), is("body ended after 7 of the 100 bytes in Content-Length"));
    }
}

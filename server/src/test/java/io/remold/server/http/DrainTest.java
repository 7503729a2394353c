package io.remold.server.http;

import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import javax.net.ssl.SSLSocket;

import static io.remold.server.Eventually.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * Shutdown with a drain period, over real HTTPS connections: the server keeps answering, says it is not ready, and
 * marks each response {@code Connection: close}, which an HTTP/1.1 client must obey by sending nothing more on that
 * connection (RFC 9112, 9.6): a client holding a kept-alive connection (the API server) moves to another replica
 * between requests instead of losing one. (Helidon itself leaves the socket open until the client closes it.)
 */
class DrainTest {
    private static final byte[] HEALTHZ = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    @Test
    void drainingServesNotReadyAndClosesEachConnectionAfterItsResponse() throws Exception {
        try (var server = new TestServer(dir, 4096, ClusterRefs.NONE, BindingListener.NONE, Duration.ofSeconds(4))) {
            server.store.synced();
            assertThat(server.get("/readyz").statusCode(), is(200));
            assertThat(head(server), not(containsString("connection: close")));

            Thread stopping = Thread.ofPlatform().start(server.server::close);
            await("the drain to begin", () -> server.get("/readyz").statusCode() != 200);
            var readyz = server.get("/readyz");
            assertThat(readyz.statusCode(), is(503));
            assertThat(readyz.body(), is("shutting down\n"));

            String during = head(server);
            assertThat(during, containsString("200 ok"));
            assertThat(during, containsString("connection: close"));
            stopping.join();
        }
    }

    /** The response head of one request on a fresh connection, in lower case. */
    private static String head(TestServer server) throws IOException {
        try (var socket = (SSLSocket) server.client.sslContext().getSocketFactory()
                .createSocket("127.0.0.1", server.server.port())) {
            socket.setSoTimeout(1000);
            socket.getOutputStream().write(HEALTHZ);
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            var received = new ByteArrayOutputStream();
            try {
                in.transferTo(received);
            } catch (SocketTimeoutException e) {
                // kept alive: everything sent so far is the response
            }
            String text = received.toString(StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
            return text.substring(0, Math.max(0, text.indexOf("\r\n\r\n")));
        }
    }
}

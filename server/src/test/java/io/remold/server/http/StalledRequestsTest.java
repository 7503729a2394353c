package io.remold.server.http;

import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import javax.net.ssl.SSLSocket;

import static io.remold.server.Eventually.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

/**
 * The review's stall attacks (tools/stall.py) over real TLS: header-only requests announcing large bodies (F5) and
 * requests whose bodies never finish (F6) neither exhaust the heap nor keep the server from answering.
 */
class StalledRequestsTest {
    @TempDir
    Path dir;

    /** Opens a TLS connection and sends a POST head announcing {@code length} bytes, and {@code prefix} of them. */
    static SSLSocket stall(TestServer server, long length, int prefix) throws IOException {
        var socket = (SSLSocket) server.client.sslContext().getSocketFactory()
                .createSocket("127.0.0.1", server.server.port());
        socket.getOutputStream().write(("POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json"
                + "\r\nContent-Length: " + length + "\r\n\r\n" + "{".repeat(prefix))
                .getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    /**
     * The status line the server sent before it closed the connection, "closed" when it sent none, or "still open"
     * when it did not close the connection.
     */
    static String answer(java.net.Socket socket) throws IOException {
        socket.setSoTimeout(60_000); // a bound for a broken server, not a timing: the read deadline closes sooner
        InputStream in = socket.getInputStream();
        var line = new StringBuilder();
        try {
            int c = in.read();
            for (; c >= 0 && c != '\r'; c = in.read()) {
                line.append((char) c);
            }
            while (c >= 0) {
                c = in.read();
            }
        } catch (SocketTimeoutException e) {
            return "still open after \"" + line + "\"";
        } catch (IOException e) {
            // reset by the server
        }
        return line.isEmpty() ? "closed" : line.toString();
    }

    @Test
    void headerOnlyRequestsAnnouncingLargeBodiesAreRefusedBeyondTheBudget() throws Exception {
        // F5: 14 header-only requests announcing 8 MiB each ended a 128 MB server; each allocated its body up front.
        long max = 3L << 20;
        var limits = new HttpLimits(max, 8L << 20, Duration.ofSeconds(20));
        String large = WebhookServerTest.review("large", "CREATE", ",\"x\":\"" + " ".repeat(5 << 19) + "\"");
        try (var server = new TestServer(dir, limits, ClusterRefs.NONE, BindingListener.NONE, Duration.ZERO, null)) {
            server.store.synced();
            var sockets = new ArrayList<SSLSocket>();
            try {
                for (int i = 0; i < 20; i++) {
                    sockets.add(stall(server, max, 0));
                }
                // Two fit in 8 MiB and wait for their bodies: a review that fits in what is left is served, a larger
                // one is refused. Awaited first, so that no review races the stalled requests for the budget.
                await("two stalled requests holding their bytes",
                        () -> server.server.bodyBytesAvailable() == limits.maxBodyBytesInFlight() - 2 * max);
                HttpResponse<String> refusedLarge = server.post("/validate", "application/json", large);
                assertThat(refusedLarge.body(), refusedLarge.statusCode(), is(503));
                assertThat(refusedLarge.body(), containsString("max-body-bytes-in-flight"));
                HttpResponse<String> small = server.post("/validate", "application/json",
                        WebhookServerTest.review("fits", "CREATE", ""));
                assertThat(WebhookServerTest.response(small).getString("uid"), is("fits"));
                // The other 18 were refused at once, unread, and every connection is closed at its read deadline
                // (Helidon drains a refused body, which never comes).
                var answers = new ArrayList<String>();
                for (SSLSocket socket : sockets) {
                    answers.add(answer(socket));
                }
                assertThat(answers.toString(), answers.stream()
                        .filter(a -> a.equals("HTTP/1.1 503 Service Unavailable")).count(), is(18L));
                assertThat(answers.toString(), answers.stream().filter(a -> a.equals("closed")).count(), is(2L));
            } finally {
                for (SSLSocket socket : sockets) {
                    socket.close();
                }
            }
            // Gone, the stalled two give their share back.
            HttpResponse<String> http = await(() -> server.post("/validate", "application/json", large),
                    answer -> answer.statusCode() == 200);
            assertThat(WebhookServerTest.response(http).getString("uid"), is("large"));
        }
    }

    @Test
    void stalledBodiesAreClosedAtTheReadDeadlineAndTheAdminListenerAnswersMeanwhile() throws Exception {
        // F6: 300 requests with 1 of 100 body bytes held every request slot with no timeout; /healthz answered 503.
        var limits = new HttpLimits(4096, 32L << 20, Duration.ofSeconds(3));
        try (var server = new TestServer(dir, limits, ClusterRefs.NONE, BindingListener.NONE, Duration.ZERO, null)) {
            server.store.synced();
            var sockets = new ArrayList<SSLSocket>();
            try {
                for (int i = 0; i < 300; i++) {
                    sockets.add(stall(server, 100, 1));
                }
                assertThat(server.getAdmin("/healthz").statusCode(), is(200));
                assertThat(server.getAdmin("/readyz").statusCode(), is(200));
                var answers = new ArrayList<String>();
                for (SSLSocket socket : sockets) {
                    answers.add(answer(socket));
                }
                // Beyond the request bound a request is refused; every stalled one is closed, none left open.
                assertThat(answers.stream().filter(a -> a.equals("closed")).count() + answers.stream()
                        .filter(a -> a.startsWith("HTTP/1.1 503")).count(), is(300L));
                assertThat(answers.stream().filter(a -> a.equals("closed")).count() >= 1, is(true));
            } finally {
                for (SSLSocket socket : sockets) {
                    socket.close();
                }
            }
            HttpResponse<String> http = server.post("/validate", "application/json",
                    WebhookServerTest.review("after", "CREATE", ""));
            assertThat(WebhookServerTest.response(http).getString("uid"), is("after"));
            assertThat(server.getAdmin("/metrics").body(),
                    containsString("remold_requests_total{endpoint=\"/validate\",outcome=\"unread\"} "));
        }
    }

    @Test
    void requestsWhoseHeadersStallAreClosedAtTheReadDeadlineOnBothListeners() throws Exception {
        var limits = new HttpLimits(4096, 32L << 20, Duration.ofSeconds(1));
        try (var server = new TestServer(dir, limits, ClusterRefs.NONE, BindingListener.NONE, Duration.ZERO, null)) {
            server.store.synced();
            var socket = (SSLSocket) server.client.sslContext().getSocketFactory()
                    .createSocket("127.0.0.1", server.server.port());
            var admin = new java.net.Socket("127.0.0.1", server.server.adminPort());
            try (socket; admin) {
                socket.getOutputStream().write("POST /validate HTTP/1.1\r\nHost: local".getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                admin.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: local".getBytes(StandardCharsets.US_ASCII));
                admin.getOutputStream().flush();
                assertThat(answer(socket), is("closed"));
                assertThat(answer(admin), is("closed"));
            }
            HttpResponse<String> http = server.post("/validate", "application/json",
                    WebhookServerTest.review("after", "CREATE", ""));
            assertThat(WebhookServerTest.response(http).getString("uid"), is("after"));
        }
    }
}

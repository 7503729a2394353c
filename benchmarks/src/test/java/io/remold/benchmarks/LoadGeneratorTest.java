package io.remold.benchmarks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The load generator's connection reads both framings of an HTTPS answer on one keep-alive connection: a
 * Content-Length, and chunks (as Go's net/http sends a long answer, kinitiras's webhook among them).
 */
class LoadGeneratorTest {
    private static final String ANSWER = "{\"response\":{\"allowed\":true,\"patch\":\"" + "QUJD".repeat(1500) + "\"}}";
    private static final ExecutorService EXECUTOR = Executors.newVirtualThreadPerTaskExecutor();
    private static HttpsServer server;
    private static SSLContext client;

    @BeforeAll
    static void startServer(@TempDir Path dir) throws Exception {
        Path store = dir.resolve("server.p12");
        LoopbackProvider.keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
            "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "1", "-storetype", "PKCS12",
            "-keystore", store.toString(), "-storepass", LoopbackProvider.STORE_PASSWORD);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(LoopbackProvider.serverContext(store)));
        server.setExecutor(EXECUTOR);
        byte[] answer = ANSWER.getBytes(StandardCharsets.UTF_8);
        server.createContext("/length", exchange -> {
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        server.createContext("/chunks", exchange -> {
            exchange.sendResponseHeaders(200, 0); // 0: chunked
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer, 0, 1000);
                out.flush();
                out.write(answer, 1000, answer.length - 1000);
            }
        });
        server.createContext("/refused", exchange -> {
            exchange.sendResponseHeaders(500, 0);
            exchange.getResponseBody().close();
        });
        server.start();
        client = LoadGenerator.tls(null, true);
    }

    @AfterAll
    static void stopServer() {
        server.stop(0);
        EXECUTOR.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/length", "/chunks"})
    void readsTheWholeAnswerAndKeepsTheConnection(String path) throws IOException {
        var connection = new LoadGenerator.Connection(client, url(path));
        try {
            for (int i = 0; i < 3; i++) {
                LoadGenerator.Reply reply = connection.exchange(path, "{}".getBytes(StandardCharsets.UTF_8));
                assertThat(reply.status(), is(200));
                assertThat(new String(reply.body(), StandardCharsets.UTF_8), is(ANSWER));
                connection.post("{}".getBytes(StandardCharsets.UTF_8));
            }
        } finally {
            connection.close();
        }
    }

    @Test
    void anAnswerOtherThan200IsAnError() throws IOException {
        var connection = new LoadGenerator.Connection(client, url("/refused"));
        try {
            assertThrows(IOException.class, () -> connection.post("{}".getBytes(StandardCharsets.UTF_8)));
        } finally {
            connection.close();
        }
    }

    private static URI url(String path) {
        return URI.create("https://127.0.0.1:" + server.getAddress().getPort() + path);
    }
}

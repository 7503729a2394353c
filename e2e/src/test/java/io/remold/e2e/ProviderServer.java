package io.remold.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An external data provider speaking Gatekeeper's ProviderRequest/ProviderResponse over HTTPS on 127.0.0.1, with the
 * certificate the e2e control plane issued for the webhooks (so the Provider's caBundle is the e2e CA). Each path is
 * a behaviour: {@code /mirror} answers {@code mirror.example.com/KEY}; {@code /slow} answers after 10 s; {@code /huge}
 * streams 64 MiB; {@code /malformed} answers text that is not JSON; {@code /failing} answers 500. It counts how often
 * each key was asked.
 */
final class ProviderServer implements AutoCloseable {
    private static final Pattern KEY = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final HttpsServer server;
    private final Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();

    ProviderServer() {
        try {
            server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            server.setHttpsConfigurator(new HttpsConfigurator(tls()));
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/mirror", exchange -> answer(exchange, "mirror.example.com/"));
            server.createContext("/slow", exchange -> {
                sleep(10_000);
                answer(exchange, "late/");
            });
            server.createContext("/huge", ProviderServer::huge);
            server.createContext("/malformed", exchange -> send(exchange, 200, "{\"response\": {\"items\": [tr"));
            server.createContext("/failing", exchange -> send(exchange, 500, "provider is down"));
            server.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the test provider", e);
        }
    }

    String url(String path) {
        return "https://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** How often {@code key} was asked, over every path. */
    int asked(String key) {
        AtomicInteger count = asked.get(key);
        return count == null ? 0 : count.get();
    }

    /** The e2e CA, as a Provider's {@code caBundle}. */
    static String caBundle() {
        return Base64.getEncoder().encodeToString(Cluster.read(Cluster.CA).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private void answer(HttpExchange exchange, String prefix) throws IOException {
        var items = new ArrayList<String>();
        for (String key : keys(exchange)) {
            asked.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            items.add("{\"key\": \"" + key + "\", \"value\": \"" + prefix + key + "\"}");
        }
        send(exchange, 200, """
                {"apiVersion": "externaldata.gatekeeper.sh/v1beta1", "kind": "ProviderResponse",
                 "response": {"idempotent": true, "items": [%s]}}""".formatted(String.join(", ", items)));
    }

    /** The keys of a ProviderRequest: its strings after {@code "keys"} (the test's keys hold no quotes). */
    private static List<String> keys(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        int at = body.indexOf("\"keys\"");
        var keys = new ArrayList<String>();
        if (at >= 0) {
            Matcher m = KEY.matcher(body.substring(at + 6, body.indexOf(']', at)));
            while (m.find()) {
                keys.add(m.group(1));
            }
        }
        return keys;
    }

    /** A ProviderResponse that never ends: its start, then spaces, 64 MiB in all unless the client hangs up. */
    private static void huge(HttpExchange exchange) throws IOException {
        var spaces = new java.io.InputStream() {
            private long left = 64L << 20;

            @Override
            public int read() {
                return left-- > 0 ? ' ' : -1;
            }
        };
        var body = new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(
                "{\"response\": {\"items\": [".getBytes(StandardCharsets.UTF_8)), spaces);
        exchange.getRequestBody().readAllBytes();
        exchange.sendResponseHeaders(200, 0);
        try (OutputStream out = exchange.getResponseBody()) {
            body.transferTo(out);
        } catch (IOException e) {
            // the client stopped reading: what a bounded reader does
        }
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        exchange.getRequestBody().readAllBytes();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        } catch (IOException e) {
            // the client gave up (timed out): nothing to answer
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** TLS with the control plane's webhook certificate for 127.0.0.1 (its key is PKCS#8 PEM, as openssl writes). */
    private static SSLContext tls() {
        try {
            String pem = Cluster.read(Cluster.WEBHOOK_KEY).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            var key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder()
                    .decode(pem)));
            Certificate cert;
            try (var in = java.nio.file.Files.newInputStream(Cluster.WEBHOOK_CERT)) {
                cert = CertificateFactory.getInstance("X.509").generateCertificate(in);
            }
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("provider", key, new char[0], new Certificate[] {cert});
            var keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, new char[0]);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys.getKeyManagers(), null, null);
            return context;
        } catch (IOException | java.security.GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the e2e webhook certificate for the test provider", e);
        }
    }
}

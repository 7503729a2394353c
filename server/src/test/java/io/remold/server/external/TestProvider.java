package io.remold.server.external;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.remold.server.TestCertificates;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTPS external data provider on a loopback port, behaving as its path says: {@code /good} answers
 * {@code "value-of-KEY"} (a key starting with {@code bad} gets a per-key error, {@code large-N-...} a string of N
 * characters, {@code object-...} an object), {@code /lagging} the same after 300 ms, {@code /slow} sleeps 30 s,
 * {@code /trickle} sends its headers at once and then a byte every 100 ms, {@code /failing} answers 500,
 * {@code /huge} streams 50 MiB, {@code /malformed} answers broken JSON, {@code /systemError} a system error,
 * {@code /notIdempotent} says its answers are not idempotent, {@code /missing} no item for keys starting with
 * {@code absent}, {@code /flaky} fails as {@code /failing} while {@link #flakyFails}, else as {@code /good},
 * {@code /perKey} as its keys say: a key starting with {@code fail} makes it answer 500, one starting with
 * {@code held} makes it wait until {@link #held} is released (30 s at most), else as {@code /good}. It counts the
 * POSTs and how often each key was asked (before it answers).
 */
public final class TestProvider implements AutoCloseable {
    private final HttpsServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    /** Base64 of the PEM certificate to trust: a Provider's {@code caBundle}. */
    public final String caBundle;
    final Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();
    final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
    volatile boolean flakyFails;
    /** What {@code /perKey} waits for when asked a {@code held} key; a test sets its own and counts it down. */
    volatile CountDownLatch held = new CountDownLatch(0);

    public TestProvider(Path dir) throws IOException {
        this(dir, TestCertificates.serverContext(dir));
    }

    /** A provider serving {@code tls}, whose certificate (to trust) is {@code dir/ca.crt}. */
    TestProvider(Path dir, SSLContext tls) throws IOException {
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        caBundle = Base64.getEncoder().encodeToString(Files.readAllBytes(dir.resolve("ca.crt")));
    }

    public String url(String mode) {
        return "https://localhost:" + server.getAddress().getPort() + "/" + mode;
    }

    public int asked(String key) {
        AtomicInteger n = asked.get(key);
        return n == null ? 0 : n.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            JsonObject request = Json.createReader(exchange.getRequestBody()).readObject();
            List<String> keys = request.getJsonObject("request").getJsonArray("keys").getValuesAs(JsonString.class)
                    .stream().map(JsonString::getString).toList();
            batchSizes.add(keys.size());
            keys.forEach(k -> asked.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet());
            String mode = exchange.getRequestURI().getPath().substring(1);
            switch (mode) {
                case "good" -> send(exchange, 200, answer(keys, "", true));
                case "lagging" -> {
                    sleep(300);
                    send(exchange, 200, answer(keys, "", true));
                }
                case "slow" -> {
                    sleep(30_000);
                    send(exchange, 200, answer(keys, "", true));
                }
                case "trickle" -> trickle(exchange);
                case "failing" -> send(exchange, 500, "{\"message\":\"boom\"}");
                case "flaky" -> {
                    if (flakyFails) {
                        send(exchange, 500, "{\"message\":\"boom\"}");
                    } else {
                        send(exchange, 200, answer(keys, "", true));
                    }
                }
                case "perKey" -> {
                    if (keys.stream().anyMatch(k -> k.startsWith("fail"))) {
                        send(exchange, 500, "{\"message\":\"boom\"}");
                        return;
                    }
                    if (keys.stream().anyMatch(k -> k.startsWith("held"))) {
                        await(held);
                    }
                    send(exchange, 200, answer(keys, "", true));
                }
                case "huge" -> streamHuge(exchange);
                case "malformed" -> send(exchange, 200, "{\"response\": {\"items\": [");
                case "systemError" -> send(exchange, 200, answer(keys, "database is down", true));
                case "notIdempotent" -> send(exchange, 200, answer(keys, "", false));
                case "missing" -> send(exchange, 200, answer(keys.stream().filter(k -> !k.startsWith("absent"))
                        .toList(), "", true));
                default -> send(exchange, 404, "no such mode");
            }
        }
    }

    private static String answer(List<String> keys, String systemError, boolean idempotent) {
        var items = Json.createArrayBuilder();
        for (String key : keys) {
            var item = Json.createObjectBuilder().add("key", key);
            if (key.startsWith("bad")) {
                item.add("error", "unknown " + key);
            } else if (key.startsWith("large-")) {
                item.add("value", "x".repeat(Integer.parseInt(key.split("-")[1])));
            } else if (key.startsWith("object-")) {
                item.add("value", Json.createObjectBuilder().add("key", key).add("list", Json.createArrayBuilder()
                        .add(1).add(2)));
            } else {
                item.add("value", "value-of-" + key);
            }
            items.add(item);
        }
        return Json.createObjectBuilder().add("apiVersion", "externaldata.gatekeeper.sh/v1beta1")
                .add("kind", "ProviderResponse").add("response", Json.createObjectBuilder()
                        .add("idempotent", idempotent)
                        .add("items", items).add("systemError", systemError)).build().toString();
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    /** 50 MiB of a valid JSON prefix and spaces, until the client hangs up. */
    private static void streamHuge(HttpExchange exchange) throws IOException {
        exchange.sendResponseHeaders(200, 0);
        byte[] chunk = new byte[64 * 1024];
        java.util.Arrays.fill(chunk, (byte) ' ');
        OutputStream out = exchange.getResponseBody();
        out.write("{\"response\": {\"items\": [".getBytes(StandardCharsets.UTF_8));
        try {
            for (int i = 0; i < 50 * 16; i++) {
                out.write(chunk);
            }
        } catch (IOException e) {
            // the client stopped reading: what it should do
        }
    }

    /** Headers at once, then a blank (valid JSON space) every 100 ms for 30 s, until the client hangs up. */
    private static void trickle(HttpExchange exchange) throws IOException {
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        try {
            for (int i = 0; i < 300; i++) {
                out.write(' ');
                out.flush();
                sleep(100);
            }
        } catch (IOException | UncheckedIOException e) {
            // the client stopped reading: what it should do
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted"));
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted"));
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

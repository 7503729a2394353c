package io.remold.server.kube;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.kubernetes.client.openapi.ApiClient;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A loopback HTTP server that speaks the few API server endpoints the cluster mode uses: each route answers from
 * a script of responses (the last one repeats), unknown routes answer 404 with a Status, and watches send their
 * scripted events (to the first watch of the path only) and then stay open until the server stops. Every request
 * is recorded. A route may also be a handler that answers from the request (a paginated list).
 */
public final class FakeApiServer implements AutoCloseable {
    public record Request(String method, String path, String query, String contentType, String body) {
        /** The value of a query parameter, URL-decoded, or null. */
        public String parameter(String name) {
            if (query == null) {
                return null;
            }
            for (String pair : query.split("&")) {
                int equals = pair.indexOf('=');
                if (equals > 0 && pair.substring(0, equals).equals(name)) {
                    return java.net.URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
                }
            }
            return null;
        }
    }

    public record Response(int status, String body) {
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Map<String, Deque<Response>> routes = new ConcurrentHashMap<>();
    private final Map<String, Function<Request, Response>> handlers = new ConcurrentHashMap<>();
    private final Map<String, List<String>> watchEvents = new ConcurrentHashMap<>();
    private final List<Request> requests = new ArrayList<>();
    private final CountDownLatch stopped = new CountDownLatch(1);

    public FakeApiServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Scripts {@code METHOD path} (path without query): answered in order, the last answer repeats. */
    public FakeApiServer on(String method, String path, Response... responses) {
        handlers.remove(method + " " + path);
        routes.put(method + " " + path, new ArrayDeque<>(List.of(responses)));
        return this;
    }

    /** Answers {@code METHOD path} (path without query) with {@code handler}, called on the server's threads. */
    public FakeApiServer on(String method, String path, Function<Request, Response> handler) {
        handlers.put(method + " " + path, handler);
        return this;
    }

    /** Scripts the events of the first watch of {@code path}: {@code type} and object JSON (single quotes allowed). */
    FakeApiServer onWatch(String path, String... events) {
        watchEvents.put(path, List.of(events));
        return this;
    }

    static String event(String type, String object) {
        return ("{'type':'" + type + "','object':" + object + "}").replace('\'', '"');
    }

    public ApiClient client() {
        var client = new ApiClient();
        client.setBasePath("http://127.0.0.1:" + server.getAddress().getPort());
        return client;
    }

    public synchronized List<Request> requests() {
        return List.copyOf(requests);
    }

    public synchronized List<Request> requests(String method, String path) {
        return requests.stream().filter(r -> r.method().equals(method) && r.path().equals(path)).toList();
    }

    public static Response ok(String body) {
        return new Response(200, body);
    }

    public static Response status(int code, String reason) {
        return new Response(code, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\""
                + reason + "\",\"code\":" + code + "}");
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        String query = exchange.getRequestURI().getQuery();
        var request = new Request(method, path, query, exchange.getRequestHeaders().getFirst("Content-Type"), body);
        synchronized (this) {
            requests.add(request);
        }
        if (query != null && query.contains("watch=true")) {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, 0);
            List<String> events = watchEvents.remove(path);
            if (events != null) {
                for (String event : events) {
                    exchange.getResponseBody().write((event + "\n").getBytes(StandardCharsets.UTF_8));
                }
                exchange.getResponseBody().flush();
            }
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
            return;
        }
        Function<Request, Response> handler = handlers.get(method + " " + path);
        Response response = handler != null ? handler.apply(request) : next(method + " " + path);
        byte[] bytes = response.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(response.status(), bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private Response next(String route) {
        Deque<Response> script = routes.get(route);
        if (script == null) {
            return status(404, "NotFound");
        }
        synchronized (script) {
            return script.size() > 1 ? script.poll() : script.peek();
        }
    }

    @Override
    public void close() {
        stopped.countDown();
        server.stop(0);
        threads.shutdownNow();
    }
}

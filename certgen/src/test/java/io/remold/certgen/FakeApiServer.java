package io.remold.certgen;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The few API server calls certgen makes, in memory, on a loopback port: GET/POST/PUT/PATCH of Secrets and GET/PATCH
 * of webhook configurations (JSON patch and merge patch), with resourceVersion checks and injectable refusals.
 */
final class FakeApiServer implements AutoCloseable {
    static final String SECRETS = "/api/v1/namespaces/%s/secrets";
    static final String MUTATING = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/";
    static final String VALIDATING = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/";

    private final HttpServer server;
    private final Map<String, JsonObject> objects = new ConcurrentHashMap<>();
    private final Set<String> forbidden = new HashSet<>();
    private final List<String> writes = new ArrayList<>();
    private int resourceVersion = 100;

    FakeApiServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Refuses "METHOD path" with 403, as RBAC would. */
    synchronized void forbid(String method, String path) {
        forbidden.add(method + " " + path);
    }

    synchronized void put(String path, JsonObject object) {
        objects.put(path, withResourceVersion(object));
    }

    JsonObject get(String path) {
        return objects.get(path);
    }

    synchronized List<String> writes() {
        return List.copyOf(writes);
    }

    private synchronized void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getPath();
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            if (forbidden.contains(method + " " + path)) {
                String resource = path.split("/")[path.split("/").length - 2];
                respond(exchange, 403, status(403, "Forbidden", resource + " is forbidden: User "
                        + "\"system:serviceaccount:remold-system:remold-certgen\" cannot " + method.toLowerCase()
                        + " resource \"" + resource + "\""));
                return;
            }
            JsonObject current = objects.get(path);
            switch (method) {
                case "GET" -> respond(exchange, current == null ? 404 : 200, current == null ? notFound(path) : current);
                case "POST" -> {
                    JsonObject created = parse(body);
                    String target = path + "/" + created.getJsonObject("metadata").getString("name");
                    if (objects.containsKey(target)) {
                        respond(exchange, 409, status(409, "AlreadyExists", target + " already exists"));
                        return;
                    }
                    write(method, target, created);
                    respond(exchange, 201, objects.get(target));
                }
                case "PUT" -> {
                    JsonObject replacement = parse(body);
                    if (current == null) {
                        respond(exchange, 404, notFound(path));
                    } else if (!replacement.getJsonObject("metadata").getString("resourceVersion", "")
                            .equals(current.getJsonObject("metadata").getString("resourceVersion"))) {
                        respond(exchange, 409, status(409, "Conflict", "the object has been modified"));
                    } else {
                        write(method, path, replacement);
                        respond(exchange, 200, objects.get(path));
                    }
                }
                case "PATCH" -> {
                    if (current == null) {
                        respond(exchange, 404, notFound(path));
                        return;
                    }
                    String type = exchange.getRequestHeaders().getFirst("Content-Type");
                    JsonValue patched;
                    try {
                        patched = type.startsWith("application/json-patch+json")
                                ? Json.createPatch(Json.createReader(new StringReader(body)).readArray()).apply(current)
                                : Json.createMergePatch(Json.createReader(new StringReader(body)).readValue())
                                        .apply(current);
                    } catch (RuntimeException e) {
                        respond(exchange, 422, status(422, "Invalid", "patch failed: " + e.getMessage()));
                        return;
                    }
                    write(method, path, patched.asJsonObject());
                    respond(exchange, 200, objects.get(path));
                }
                case "DELETE" -> {
                    if (current == null) {
                        respond(exchange, 404, notFound(path));
                        return;
                    }
                    objects.remove(path);
                    writes.add(method + " " + path);
                    respond(exchange, 200, status(200, "Success", "deleted"));
                }
                default -> respond(exchange, 405, status(405, "MethodNotAllowed", method));
            }
        }
    }

    private void write(String method, String path, JsonObject object) {
        writes.add(method + " " + path);
        objects.put(path, withResourceVersion(object));
    }

    private JsonObject withResourceVersion(JsonObject object) {
        var metadata = Json.createObjectBuilder(object.getJsonObject("metadata"))
                .add("resourceVersion", String.valueOf(++resourceVersion));
        return Json.createObjectBuilder(object).add("metadata", metadata).build();
    }

    private static JsonObject parse(String body) {
        return Json.createReader(new StringReader(body)).readObject();
    }

    private static JsonObject notFound(String path) {
        return status(404, "NotFound", path.substring(path.lastIndexOf('/') + 1) + " not found");
    }

    private static JsonObject status(int code, String reason, String message) {
        return Json.createObjectBuilder().add("apiVersion", "v1").add("kind", "Status").add("status", "Failure")
                .add("reason", reason).add("message", message).add("code", code).build();
    }

    private static void respond(HttpExchange exchange, int code, JsonStructure body) throws IOException {
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(code, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

package io.remold.playground;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Semaphore;

/**
 * The playground's web server: the page (three static files) and its API, {@code POST /api/eval},
 * {@code GET /api/examples} and {@code GET /api/examples/ID}. Bounded as the admission server is, though it serves
 * one person: a body cap (413), a few evaluations at once (503 beyond), and only requests addressed to the host it
 * was bound to or a loopback name (403 else: a web page cannot reach it through a rebound DNS name).
 */
final class Playground implements AutoCloseable {
    /** The largest request body: rules and objects bigger than this are not a playground's. */
    static final int MAX_BODY_BYTES = 1 << 20;
    /** Evaluations at once: each may hold a script sandbox, on a developer's machine. */
    static final int MAX_EVALUATIONS = 2;
    private static final String STATIC = "/io/remold/playground/static/";
    private static final Set<String> LOOPBACK_NAMES = Set.of("localhost", "127.0.0.1", "[::1]");

    private final WebServer server;
    private final Examples examples;
    private final Semaphore evaluations;
    private final String bind;

    private Playground(String bind, int port, Examples examples, Semaphore evaluations) {
        this.bind = bind;
        this.examples = examples;
        this.evaluations = evaluations;
        var routing = HttpRouting.builder()
                .addFilter((chain, req, res) -> {
                    if (addressed(req)) {
                        chain.proceed();
                    } else {
                        problem(res, 403, "requests must be addressed to " + bind + " or a loopback name");
                    }
                })
                .get("/", (req, res) -> page(res, "index.html", "text/html; charset=utf-8"))
                .get("/playground.js", (req, res) -> page(res, "playground.js", "text/javascript; charset=utf-8"))
                .get("/playground.css", (req, res) -> page(res, "playground.css", "text/css; charset=utf-8"))
                .get("/api/examples", (req, res) -> json(res, 200, Json.createObjectBuilder()
                        .add("examples", Json.createArrayBuilder(examples.ids())).build()))
                .get("/api/examples/*", this::example)
                .post("/api/eval", this::evaluate);
        this.server = WebServer.builder()
                .host(bind)
                .port(port)
                .shutdownHook(false)
                .routing(routing)
                .build()
                .start();
    }

    /** Serves the page on {@code bind}:{@code port} (0: any free port) with {@code examples}. */
    static Playground start(String bind, int port, Examples examples) {
        return start(bind, port, examples, new Semaphore(MAX_EVALUATIONS));
    }

    /** {@link #start}, the evaluations running at once bounded by the permits of {@code evaluations}. */
    static Playground start(String bind, int port, Examples examples, Semaphore evaluations) {
        return new Playground(bind, port, examples, evaluations);
    }

    int port() {
        return server.port();
    }

    private boolean addressed(ServerRequest req) {
        String authority = req.authority();
        String host = authority.startsWith("[") ? authority.substring(0, authority.indexOf(']') + 1)
                : authority.contains(":") ? authority.substring(0, authority.indexOf(':')) : authority;
        return LOOPBACK_NAMES.contains(host) || host.equals(bind);
    }

    private void example(ServerRequest req, ServerResponse res) {
        String id = req.path().path().substring("/api/examples/".length());
        examples.get(id).ifPresentOrElse(c -> json(res, 200, c.toJson()),
                () -> problem(res, 404, "no example \"" + id + "\""));
    }

    private void evaluate(ServerRequest req, ServerResponse res) {
        String contentType = req.headers().first(HeaderNames.CONTENT_TYPE).orElse("");
        if (!contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            // also keeps other sites' pages out: they cannot send JSON here without a preflight this never allows
            problem(res, 415, "Content-Type must be application/json, got \"" + contentType + "\"");
            return;
        }
        OptionalLong length = req.headers().contentLength();
        if (length.isPresent() && length.getAsLong() > MAX_BODY_BYTES) {
            problem(res, 413, tooLarge(length.getAsLong()));
            return;
        }
        byte[] body;
        try (InputStream in = req.content().inputStream()) {
            body = in.readNBytes(MAX_BODY_BYTES + 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (body.length > MAX_BODY_BYTES) {
            problem(res, 413, tooLarge(body.length));
            return;
        }
        JsonObject request;
        try (JsonReader reader = Json.createReader(new ByteArrayInputStream(body))) {
            request = reader.readObject();
        } catch (JsonException | NumberFormatException e) { // a number beyond BigDecimal's exponent is refused too
            problem(res, 400, "the body is not a JSON object: " + e.getMessage());
            return;
        }
        if (!evaluations.tryAcquire()) {
            problem(res, 503, "the playground is busy: as many evaluations as it runs at once are running;"
                    + " try again when one ends");
            return;
        }
        try {
            json(res, 200, CaseEvaluation.evaluate(PlaygroundCase.of(request)));
        } catch (RuntimeException e) {
            // a fault of Remold's own, not of the input: said on the page, and the server goes on
            problem(res, 500, "evaluation failed: " + e);
        } finally {
            evaluations.release();
        }
    }

    private static String tooLarge(long bytes) {
        return "the request has " + bytes + " bytes; the playground takes at most " + MAX_BODY_BYTES
                + " (1 MiB) of rules and objects";
    }

    private static void page(ServerResponse res, String file, String contentType) throws IOException {
        try (InputStream in = Playground.class.getResourceAsStream(STATIC + file)) {
            res.header(HeaderNames.CONTENT_TYPE, contentType)
                    // the page runs only its own script and style, and talks only to this server
                    .header(HeaderNames.create("Content-Security-Policy"),
                            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
                    .header(HeaderNames.create("X-Content-Type-Options"), "nosniff")
                    .send(in.readAllBytes());
        }
    }

    private static void problem(ServerResponse res, int status, String message) {
        json(res, status, Json.createObjectBuilder().add("problem", message).build());
    }

    private static void json(ServerResponse res, int status, JsonObject body) {
        res.status(Status.create(status)).header(HeaderNames.CONTENT_TYPE, "application/json").send(body.toString());
    }

    @Override
    public void close() {
        server.stop();
    }
}

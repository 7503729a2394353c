package io.remold.playground;

import io.remold.cli.eval.EvalCommand;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.regex.Pattern;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

/** The page's API over real HTTP on loopback: eval's answers, input errors in place, and the bounds. */
class PlaygroundApiTest {
    private static final Path EXAMPLES = Path.of(System.getProperty("remold.examples.dir", "../examples"));
    static final String LOOPING_SCRIPT = """
            apiVersion: momiji.com/v1
            kind: ClusterJsAdmission
            metadata:
              name: loops
            spec:
              kinds: [pods]
              js: |
                function jsa_mutate(obj) {
                  while (true) {}
                }
            """;
    /** A Pod of the examples (scoop, in ice-cream), which no rule of these tests but their own changes. */
    static final String POD = read(EXAMPLES.resolve("kubemod-readme/add-flavor-label/input.yaml"));

    private static final Pattern INSTANT = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");

    private static Playground playground;
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        // the examples as the jar holds them (the build copies examples/ into the classes)
        playground = Playground.start("127.0.0.1", 0, Examples.packaged());
    }

    @AfterAll
    static void stop() {
        playground.close();
    }

    @Test
    void everyExampleGetsEvalsAnswer() throws Exception {
        JsonObject list = Json.createReader(new StringReader(get("/api/examples").body())).readObject();
        List<String> ids = list.getJsonArray("examples").getValuesAs(JsonString::getString);
        assertThat(ids.size(), greaterThan(20));
        assertThat(ids, hasItem("kubemod-readme/add-flavor-label"));
        for (String id : ids) {
            JsonObject example = json(get("/api/examples/" + id).body());
            JsonObject page = json(post(example.toString()).body());
            var out = new ByteArrayOutputStream();
            var err = new ByteArrayOutputStream();
            int code = io.remold.cli.Main.run(evalArgs(EXAMPLES.resolve(id), example),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            List<String> errLines = err.toString(StandardCharsets.UTF_8).lines().toList();
            assertThat(id + ": " + page, page.getJsonArray("errors"), is(empty()));
            assertThat(id + " allowed", page.getBoolean("allowed"), is(code == 0));
            if (code == 0) {
                assertThat(id, timeless(page.getString("after")),
                        equalTo(timeless(out.toString(StandardCharsets.UTF_8))));
            } else {
                assertThat(id, page.getString("rejection"), equalTo(errLines.getLast()));
            }
            // the trace eval prints with --explain, line for line
            assertThat(id, timeless(String.join("\n", page.getJsonArray("explain").getValuesAs(JsonString::getString))),
                    equalTo(timeless(String.join("\n", errLines.stream().filter(l -> !l.startsWith("remold eval: ")
                            && (code == 0 || !l.equals(errLines.getLast()))).toList()))));
        }
    }

    /** The text with its instants made alike: a script example stamps the time of its call. */
    private static String timeless(String text) {
        return INSTANT.matcher(text).replaceAll("<instant>");
    }

    /** eval's command line for an example's own files, as docs/playground.md says the page runs it. */
    private static String[] evalArgs(Path folder, JsonObject example) {
        var args = new ArrayList<>(List.of("eval", "--explain", "--rules", folder.resolve("rule.yaml").toString(),
                "--resource", folder.resolve("input.yaml").toString()));
        if (Files.exists(folder.resolve("old.yaml"))) {
            args.addAll(List.of("--old", folder.resolve("old.yaml").toString()));
        }
        if (Files.exists(folder.resolve("namespace.yaml"))) {
            args.addAll(List.of("--ref", "namespace=" + folder.resolve("namespace.yaml")));
        }
        if (Files.exists(folder.resolve("node.yaml"))) {
            args.addAll(List.of("--ref", "node=" + folder.resolve("node.yaml")));
        }
        if (!example.getString("kubemodSystemNamespace").isEmpty()) {
            args.addAll(List.of("--kubemod-system-namespace", example.getString("kubemodSystemNamespace")));
        }
        return args.toArray(String[]::new);
    }

    @Test
    void invalidYamlIsPlacedAtItsLineAndColumnAsEvalSaysIt() throws Exception {
        String rules = "apiVersion: remold.io/v1beta1\nkind: ModRule\nmetadata:\n  name: x\n   bad: [\n";
        JsonObject page = json(post(body(rules, POD)).body());
        JsonObject error = page.getJsonArray("errors").getJsonObject(0);
        assertThat(error.getString("source"), equalTo("rules"));
        assertThat(error.getInt("line"), equalTo(5));
        assertThat(error.getInt("column"), equalTo(7));

        Path folder = Files.createTempDirectory("playground-test-");
        Files.writeString(folder.resolve("rules.yaml"), rules);
        Files.writeString(folder.resolve("resource.yaml"), POD);
        var err = new ByteArrayOutputStream();
        int code = EvalCommand.run(new String[] {"--rules", folder.resolve("rules.yaml").toString(), "--resource",
                folder.resolve("resource.yaml").toString()}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code, equalTo(2));
        assertThat(error.getString("message"), equalTo(err.toString(StandardCharsets.UTF_8).lines().findFirst()
                .orElseThrow().replace("remold eval: " + folder + "/", "")));
    }

    @Test
    void aRuleFieldErrorNamesTheFieldAndLine() throws Exception {
        String rules = """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata:
                  name: x
                  namespace: shop
                spec:
                  type: Patch
                  match:
                    - select: '$.kind[['
                  patch:
                    - op: add
                      path: /metadata/labels/a
                      value: b
                """;
        JsonObject error = json(post(body(rules, POD)).body()).getJsonArray("errors").getJsonObject(0);
        assertThat(error.getString("source"), equalTo("rules"));
        assertThat(error.getInt("line"), equalTo(9));
        assertThat(error.getString("message"), containsString("spec.match[0].select"));
    }

    @Test
    void aResourceErrorIsTheResourceEditors() throws Exception {
        JsonObject error = json(post(body("", "kind: Pod\nmetadata: {name: [\n")).body())
                .getJsonArray("errors").getJsonObject(0);
        assertThat(error.getString("source"), equalTo("resource"));
        assertThat(error.getInt("line"), greaterThan(0));
    }

    @Test
    void aRequestErrorIsTheRequests() throws Exception {
        JsonObject c = Json.createObjectBuilder(json(body("", POD))).add("old", POD).add("operation", "CREATE").build();
        JsonObject error = json(post(c.toString()).body()).getJsonArray("errors").getJsonObject(0);
        assertThat(error.getString("source"), equalTo("request"));
        assertThat(error.getString("message"), equalTo("--old does not apply to CREATE"));
    }

    @Test
    void aLoopingScriptFailsAndTheServerGoesOn() throws Exception {
        JsonObject looped = json(post(body(LOOPING_SCRIPT, POD)).body());
        assertThat(looped.toString(), looped.getBoolean("allowed"), is(true));
        assertThat(looped.getJsonArray("warnings").getValuesAs(JsonString::getString).toString(),
                containsString("loops failed"));
        JsonObject normal = json(post(body("", POD)).body());
        assertThat(normal.getBoolean("allowed"), is(true));
        assertThat(normal.getJsonArray("patch"), is(empty()));
    }

    @Test
    void deepNestingAndAliasBombsAreInputErrors() throws Exception {
        String deep = "kind: Pod\nspec: " + "[".repeat(10_000) + "]".repeat(10_000) + "\n";
        JsonObject nested = json(post(body("", deep)).body()).getJsonArray("errors").getJsonObject(0);
        assertThat(nested.getString("source"), equalTo("resource"));
        assertThat(nested.getString("message"), containsString("invalid YAML"));
        String deepJson = "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000);
        JsonObject nestedJson = json(post(body("", deepJson)).body()).getJsonArray("errors").getJsonObject(0);
        assertThat(nestedJson.getString("source"), equalTo("resource"));
        var bomb = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for (int i = 1; i < 30; i++) {
            bomb.append("a").append(i).append(": &a").append(i).append(" [")
                    .append(String.join(", ", java.util.Collections.nCopies(9, "*a" + (i - 1)))).append("]\n");
        }
        JsonObject aliases = json(post(body(bomb.toString(), POD)).body()).getJsonArray("errors").getJsonObject(0);
        assertThat(aliases.getString("source"), equalTo("rules"));
        assertThat(aliases.getString("message"), containsString("invalid YAML"));
    }

    @Test
    void aBodyOverTheCapIs413WithAReason() throws Exception {
        HttpResponse<String> response = post(body("", "x: " + "a".repeat(Playground.MAX_BODY_BYTES)));
        assertThat(response.statusCode(), equalTo(413));
        assertThat(json(response.body()).getString("problem"), containsString("at most 1048576"));
    }

    @Test
    void aNumberBeyondBigDecimalsExponentIs400WithAReason() throws Exception {
        HttpResponse<String> response = post("{\"rules\": 1E99999999999}");
        assertThat(response.statusCode(), equalTo(400));
        assertThat(json(response.body()).getString("problem"), startsWith("the body is not a JSON object"));
    }

    @Test
    void aFullPlaygroundIs503WithAReason() throws Exception {
        var evaluations = new Semaphore(1);
        try (var busy = Playground.start("127.0.0.1", 0, Examples.read(EXAMPLES), evaluations)) {
            evaluations.acquire(); // as a running evaluation holds it
            HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + busy.port() + "/api/eval")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body("", POD))).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode(), equalTo(503));
            assertThat(json(response.body()).getString("problem"), startsWith("the playground is busy"));
            evaluations.release();
        }
    }

    @Test
    void onlyJsonIsTaken() throws Exception {
        HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(uri("/api/eval"))
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(body("", POD))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode(), equalTo(415));
    }

    @Test
    void aRequestForAnotherHostIsRefused() throws Exception {
        // what a page of another site would send through a DNS name rebound to 127.0.0.1
        // (the JDK's client does not let the Host header be set: a socket sends the request)
        try (var socket = new Socket("127.0.0.1", playground.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET /api/examples HTTP/1.1\r\nHost: evil.example:" + playground.port()
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            var answer = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            assertThat(answer.readLine(), startsWith("HTTP/1.1 403"));
            int length = 0;
            for (String header = answer.readLine(); !header.isEmpty(); header = answer.readLine()) {
                if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(header.substring("content-length:".length()).trim());
                }
            }
            var body = new char[length];
            assertThat(answer.read(body), equalTo(length));
            assertThat(new String(body), containsString("must be addressed to 127.0.0.1 or a loopback name"));
        }
    }

    @Test
    void thePageAndItsFilesAreServed() throws Exception {
        HttpResponse<String> page = get("/");
        assertThat(page.statusCode(), equalTo(200));
        assertThat(page.body(), containsString("playground.js"));
        assertThat(page.headers().firstValue("Content-Security-Policy").orElse(""), startsWith("default-src 'self'"));
        assertThat(get("/playground.js").body(), containsString("api/eval"));
        assertThat(get("/playground.css").statusCode(), equalTo(200));
        assertThat(get("/api/examples/no/such").statusCode(), equalTo(404));
    }

    @Test
    void examplesCanComeFromAFolder() {
        Examples examples = Examples.read(EXAMPLES);
        assertThat(examples.ids(), equalTo(Examples.packaged().ids()));
        assertThat(examples.ids(), not(hasItem("references/team-settings")));
        assertThat(examples.get("kubemod-readme/add-flavor-label").orElseThrow().namespaceRef(), containsString("flavor"));
        assertThat(examples.ids(), hasSize(greaterThan(20)));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String body(String rules, String resource) {
        return Json.createObjectBuilder().add("rules", rules).add("resource", resource).build().toString();
    }

    private static JsonObject json(String text) {
        return Json.createReader(new StringReader(text)).readObject();
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + playground.port() + path);
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return CLIENT.send(HttpRequest.newBuilder(uri(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String body) throws IOException, InterruptedException {
        return CLIENT.send(HttpRequest.newBuilder(uri("/api/eval")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}

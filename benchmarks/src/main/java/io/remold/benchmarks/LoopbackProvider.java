package io.remold.benchmarks;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonString;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * An external data provider (Gatekeeper's ProviderRequest protocol) on a loopback HTTPS port, for the external data
 * benchmarks: {@code /healthy} answers each key {@code K} with {@code K} moved to {@code mirror.example.com} (its first
 * path segment replaced), {@code /slow} the same after {@link #SLOW}, past the benchmark Provider's 1 s timeout. It
 * counts its POSTs and how often each key was asked. Its certificate is a self-signed one made by the JDK's
 * {@code keytool}, so the benchmarks need no test class of the server.
 *
 * <p>Run as a program ({@code LoopbackProvider DIR}) it writes three Provider manifests named
 * {@value #NAME} into {@code DIR}: {@code healthy.yaml}, {@code slow.yaml} and {@code down.yaml} (a loopback port
 * nothing listens on: connection refused), and prints a line per POST until killed; {@code benchmarks/external.sh}
 * runs it.
 */
public final class LoopbackProvider implements AutoCloseable {
    /** The Provider's name in the benchmark rules ({@link RuleMix#externalYaml}). */
    public static final String NAME = "registry-mirror";
    static final Duration SLOW = Duration.ofSeconds(5);

    static final String STORE_PASSWORD = "benchmark";

    private final HttpsServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final LongAdder calls = new LongAdder();
    private final Map<String, LongAdder> asked = new ConcurrentHashMap<>();
    private final boolean logCalls;
    /** Base64 of the PEM certificate: the Provider's {@code caBundle}. */
    public final String caBundle;

    /** Starts the provider; its key store and certificate go into {@code dir}. */
    public LoopbackProvider(Path dir, boolean logCalls) throws IOException, InterruptedException {
        this.logCalls = logCalls;
        Files.createDirectories(dir);
        Path store = dir.resolve("provider.p12");
        Path certificate = dir.resolve("provider.crt");
        keytool("-genkeypair", "-alias", "provider", "-keyalg", "EC", "-groupname", "secp256r1",
            "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2",
            "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", STORE_PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "provider", "-keystore", store.toString(),
            "-storepass", STORE_PASSWORD, "-file", certificate.toString());
        caBundle = Base64.getEncoder().encodeToString(Files.readAllBytes(certificate));
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(serverContext(store)));
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** {@code https://127.0.0.1:PORT/PATH}. */
    public String url(String path) {
        return "https://127.0.0.1:" + server.getAddress().getPort() + "/" + path;
    }

    /** POSTs received so far. */
    public long calls() {
        return calls.sum();
    }

    /** How often each key was asked so far. */
    public Map<String, Long> asked() {
        var counts = new TreeMap<String, Long>();
        asked.forEach((key, n) -> counts.put(key, n.sum()));
        return counts;
    }

    /**
     * The Provider manifest {@value #NAME} at {@code url}, trusting {@code caBundle}: timeout 1 s, failure policy
     * Ignore (rules go on without the value), answers cached for {@code cacheTTL}, serving the rules of the
     * benchmark namespace ({@link RuleMix#TARGET_NAMESPACE}).
     */
    public static String manifest(String url, String caBundle, String cacheTTL) {
        return """
            apiVersion: remold.io/v1beta1
            kind: Provider
            metadata:
              name: %s
            spec:
              url: %s
              caBundle: %s
              timeout: 1s
              cacheTTL: %s
              failurePolicy: Ignore
              namespaces: [%s]
            """.formatted(NAME, url, caBundle, cacheTTL, RuleMix.TARGET_NAMESPACE);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream body = exchange.getRequestBody()) {
            List<String> keys = Json.createReader(body).readObject().getJsonObject("request").getJsonArray("keys")
                .getValuesAs(JsonString.class).stream().map(JsonString::getString).toList();
            calls.increment();
            keys.forEach(key -> asked.computeIfAbsent(key, k -> new LongAdder()).increment());
            if (logCalls) {
                System.out.println("post " + exchange.getRequestURI().getPath() + " keys=" + keys);
            }
            if (exchange.getRequestURI().getPath().equals("/slow")) {
                Thread.sleep(SLOW);
            }
            JsonArrayBuilder items = Json.createArrayBuilder();
            keys.forEach(key -> items.add(Json.createObjectBuilder().add("key", key)
                .add("value", key.replaceFirst("^[^/]+/", "mirror.example.com/"))));
            byte[] answer = Json.createObjectBuilder()
                .add("apiVersion", "externaldata.gatekeeper.sh/v1beta1").add("kind", "ProviderResponse")
                .add("response", Json.createObjectBuilder().add("idempotent", true).add("items", items))
                .build().toString().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static SSLContext serverContext(Path store) throws IOException {
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(in, STORE_PASSWORD.toCharArray());
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(keys, STORE_PASSWORD.toCharArray());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(factory.getKeyManagers(), null, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot load the provider's key store " + store + ": " + e.getMessage(), e);
        }
    }

    static void keytool(String... args) throws IOException, InterruptedException {
        var command = new ArrayList<String>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IOException("keytool " + args[0] + " failed: " + output.strip());
        }
    }

    /** {@code LoopbackProvider DIR}: serves until killed; see the class comment. */
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: LoopbackProvider DIR");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        LoopbackProvider provider = new LoopbackProvider(dir, true);
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        // Failures are cached for min(cacheTTL, 10 s): a TTL above 10 s shows the failure cache's own period.
        Files.writeString(dir.resolve("healthy.yaml"), manifest(provider.url("healthy"), provider.caBundle, "5m"));
        Files.writeString(dir.resolve("slow.yaml"), manifest(provider.url("slow"), provider.caBundle, "5m"));
        Files.writeString(dir.resolve("down.yaml"),
            manifest("https://127.0.0.1:" + closedPort + "/healthy", provider.caBundle, "5m"));
        System.out.println("ready " + provider.url(""));
        Thread.currentThread().join();
    }
}

package io.remold.certgen;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.kubernetes.client.util.Config;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.InetAddress;
import java.net.Socket;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CertgenTest {
    private static final String NS = "remold-system";
    private static final String SECRET = FakeApiServer.SECRETS.formatted(NS) + "/remold-tls";
    private static final String MUTATING = FakeApiServer.MUTATING + "remold-mutating";
    private static final String VALIDATING = FakeApiServer.VALIDATING + "remold-validating";

    @TempDir
    Path dir;
    FakeApiServer api;
    Path kubeconfig;

    record Result(int code, String out, String err) {
    }

    @BeforeEach
    void start() throws IOException {
        api = new FakeApiServer();
        api.put(MUTATING, webhookConfiguration("MutatingWebhookConfiguration", "remold-mutating",
                "mutate.remold.io", "binding.remold.io"));
        api.put(VALIDATING, webhookConfiguration("ValidatingWebhookConfiguration", "remold-validating",
                "validate.remold.io", "modrule.remold.io"));
        kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: fake, cluster: {server: "%s"}}]
                users: [{name: certgen, user: {token: test-token}}]
                contexts: [{name: fake, context: {cluster: fake, user: certgen}}]
                current-context: fake
                """.formatted(api.url()));
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private static JsonObject webhookConfiguration(String kind, String name, String... webhooks) {
        var list = Json.createArrayBuilder();
        for (String webhook : webhooks) {
            list.add(Json.createObjectBuilder().add("name", webhook)
                    .add("clientConfig", Json.createObjectBuilder().add("service", Json.createObjectBuilder()
                            .add("name", "remold").add("namespace", NS).add("path", "/mutate")))
                    .add("sideEffects", "None").add("admissionReviewVersions", Json.createArrayBuilder().add("v1")));
        }
        return Json.createObjectBuilder().add("apiVersion", "admissionregistration.k8s.io/v1").add("kind", kind)
                .add("metadata", Json.createObjectBuilder().add("name", name)).add("webhooks", list).build();
    }

    @Test
    void deleteWebhooksDeletesBothConfigurationsAndNothingElseAndARerunSucceeds() {
        Result first = runMain("--delete-webhooks");
        assertThat(first.err(), first.code(), is(0));
        assertThat(api.writes(), contains("DELETE " + MUTATING, "DELETE " + VALIDATING));
        Result again = runMain("--delete-webhooks");
        assertThat(again.err(), again.code(), is(0));
        assertThat(again.out(), containsString("MutatingWebhookConfiguration remold-mutating: already gone"));
        assertThat(api.writes(), hasSize(2));
    }

    @Test
    void deleteWebhooksNamesTheRefusedObject() {
        api.forbid("DELETE", MUTATING);
        Result refused = runMain("--delete-webhooks");
        assertThat(refused.code(), is(1));
        assertThat(refused.err(), containsString("MutatingWebhookConfiguration remold-mutating"));
        assertThat(refused.err(), containsString("403"));
    }

    private Result runMain(String... extra) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        String[] args = Stream.concat(Stream.of("--kubeconfig", kubeconfig.toString()), Stream.of(extra))
                .toArray(String[]::new);
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A run at a chosen time, as the CronJob would see it days later. */
    private void runAt(Instant now) throws Exception {
        var options = CertgenOptions.parse(List.of());
        new Certgen(options, Config.fromUrl(api.url(), false), Clock.fixed(now, ZoneOffset.UTC),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();
    }

    private byte[] secretData(String key) {
        return Base64.getDecoder().decode(api.get(SECRET).getJsonObject("data").getString(key));
    }

    private List<byte[]> caBundles() {
        return Stream.of(MUTATING, VALIDATING).flatMap(path -> api.get(path).getJsonArray("webhooks").stream())
                .map(w -> Base64.getDecoder().decode(w.asJsonObject().getJsonObject("clientConfig").getString("caBundle")))
                .toList();
    }

    private List<String> caBundleTexts() {
        return caBundles().stream().map(b -> new String(b, StandardCharsets.US_ASCII)).toList();
    }

    @Test
    void firstRunCreatesTheSecretAndPatchesEveryWebhook() {
        Result result = runMain();
        assertThat(result.err(), result.code(), is(0));
        assertThat(api.writes(), contains("PATCH " + MUTATING, "PATCH " + VALIDATING,
                "POST " + FakeApiServer.SECRETS.formatted(NS) + "/remold-tls"));
        assertThat(api.get(SECRET).getString("type"), is("kubernetes.io/tls"));

        X509Certificate serving = Certificates.parseCertificates(secretData("tls.crt")).get(0);
        List<X509Certificate> cas = Certificates.parseCertificates(secretData("ca.crt"));
        assertThat(cas, hasSize(1));
        assertThat(Certificates.signedBy(serving, cas.get(0)), is(true));
        assertThat(Certificates.matches(Certificates.parseKey(secretData("tls.key")), serving), is(true));
        assertThat(Certificates.dnsNames(serving), contains("remold", "remold.remold-system", "remold.remold-system.svc",
                "remold.remold-system.svc.cluster.local"));
        assertThat(((ECPublicKey) serving.getPublicKey()).getParams().getCurve().getField().getFieldSize(), is(256));
        assertThat(cas.get(0).getBasicConstraints(), is(0));
        assertThat(serving.getBasicConstraints(), is(-1));
        assertThat(caBundleTexts(), hasSize(4));
        assertThat(caBundleTexts(), everyItem(is(new String(secretData("ca.crt"), StandardCharsets.US_ASCII))));
        assertThat(result.out(), containsString("Secret remold-system/remold-tls: created"));
    }

    /** The API server's view: it dials the Service name and trusts only the caBundle of the webhook configuration. */
    @Test
    void theServingCertificateCompletesATlsHandshakeForTheServiceNameAgainstTheCaBundle() throws Exception {
        assertThat(runMain().code(), is(0));
        X509Certificate serving = Certificates.parseCertificates(secretData("tls.crt")).get(0);
        var keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("serving", Certificates.parseKey(secretData("tls.key")), new char[0],
                new X509Certificate[] {serving});
        var keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, new char[0]);
        var serverContext = SSLContext.getInstance("TLS");
        serverContext.init(keyManagers.getKeyManagers(), null, null);

        var trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        List<X509Certificate> caBundle = Certificates.parseCertificates(caBundles().get(0));
        for (int i = 0; i < caBundle.size(); i++) {
            trusted.setCertificateEntry("ca" + i, caBundle.get(i));
        }
        var trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trusted);
        var clientContext = SSLContext.getInstance("TLS");
        clientContext.init(null, trustManagers.getTrustManagers(), null);

        List<String> names = List.of("remold.remold-system.svc", "remold.remold-system.svc.cluster.local",
                "remold.elsewhere.svc");
        try (var listener = (SSLServerSocket) serverContext.getServerSocketFactory()
                .createServerSocket(0, names.size(), InetAddress.getLoopbackAddress())) {
            Thread server = Thread.ofVirtual().start(() -> {
                for (int i = 0; i < names.size(); i++) {
                    try (var accepted = (SSLSocket) listener.accept()) {
                        accepted.startHandshake();
                    } catch (IOException e) {
                        // a refused handshake is the client's to report
                    }
                }
            });
            for (String name : names.subList(0, 2)) {
                assertThat(name, handshake(clientContext, listener.getLocalPort(), name), is(serving));
            }
            assertThrows(SSLHandshakeException.class,
                    () -> handshake(clientContext, listener.getLocalPort(), names.get(2)));
            server.join();
        }
    }

    /** Connects to the loopback port as if to {@code host}, verifying the host name as an HTTPS client does. */
    private static Certificate handshake(SSLContext client, int port, String host) throws IOException {
        var plain = new Socket(InetAddress.getLoopbackAddress(), port);
        try (var socket = (SSLSocket) client.getSocketFactory().createSocket(plain, host, port, true)) {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            return socket.getSession().getPeerCertificates()[0];
        }
    }

    @Test
    void secondRunChangesNothing() {
        assertThat(runMain().code(), is(0));
        List<String> writes = api.writes();
        String secretBefore = api.get(SECRET).toString();

        Result second = runMain();
        assertThat(second.err(), second.code(), is(0));
        assertThat(api.writes(), is(writes));
        assertThat(api.get(SECRET).toString(), is(secretBefore));
        assertThat(second.out(), containsString("Secret remold-system/remold-tls: current"));
        assertThat(second.out(), containsString("MutatingWebhookConfiguration remold-mutating: caBundle current in 2"));
    }

    @Test
    void nearExpiryRenewsAndTrustsOldAndNewCaTogether() throws Exception {
        Instant installed = Instant.parse("2026-01-01T00:00:00Z");
        runAt(installed);
        X509Certificate oldServing = Certificates.parseCertificates(secretData("tls.crt")).get(0);
        X509Certificate oldCa = Certificates.parseCertificates(secretData("ca.crt")).get(0);
        int writes = api.writes().size();

        runAt(installed.plus(Duration.ofDays(300)));
        assertThat("outside the renew-before window nothing is written", api.writes().size(), is(writes));

        Instant nearExpiry = installed.plus(Duration.ofDays(340));
        runAt(nearExpiry);
        List<String> renewal = api.writes().subList(writes, api.writes().size());
        assertThat("webhooks learn the new CA before the Secret changes", renewal,
                contains("PATCH " + MUTATING, "PATCH " + VALIDATING, "PUT " + SECRET));
        X509Certificate newServing = Certificates.parseCertificates(secretData("tls.crt")).get(0);
        List<X509Certificate> trusted = Certificates.parseCertificates(secretData("ca.crt"));
        assertThat(trusted, hasSize(2));
        assertThat(trusted.get(1), is(oldCa));
        assertThat(newServing, not(is(oldServing)));
        assertThat(Certificates.signedBy(newServing, trusted.get(0)), is(true));
        assertThat("servers that still present the old certificate stay trusted",
                Certificates.signedBy(oldServing, trusted.get(1)), is(true));
        assertThat(newServing.getNotAfter().toInstant(), is(nearExpiry.plus(Duration.ofDays(365))));
        assertThat(caBundleTexts(), everyItem(is(new String(secretData("ca.crt"), StandardCharsets.US_ASCII))));

        int afterRenewal = api.writes().size();
        runAt(nearExpiry.plus(Duration.ofDays(1)));
        assertThat("the renewed state is current", api.writes().size(), is(afterRenewal));
    }

    @Test
    void renewNowReplacesACurrentCertificateAndKeepsTheOldCaTrusted() {
        assertThat(runMain().code(), is(0));
        X509Certificate oldServing = Certificates.parseCertificates(secretData("tls.crt")).get(0);
        X509Certificate oldCa = Certificates.parseCertificates(secretData("ca.crt")).get(0);

        Result renewed = runMain("--renew-now");
        assertThat(renewed.err(), renewed.code(), is(0));
        assertThat(renewed.out(), containsString("renewal requested (--renew-now)"));
        X509Certificate newServing = Certificates.parseCertificates(secretData("tls.crt")).get(0);
        List<X509Certificate> trusted = Certificates.parseCertificates(secretData("ca.crt"));
        assertThat(newServing, not(is(oldServing)));
        assertThat(trusted, hasSize(2));
        assertThat(trusted.get(1), is(oldCa));
        assertThat(caBundleTexts(), everyItem(is(new String(secretData("ca.crt"), StandardCharsets.US_ASCII))));
    }

    @Test
    void aWebhookThatLostItsCaBundleIsPatchedAloneAndTheSecretIsKept() {
        assertThat(runMain().code(), is(0));
        String secretBefore = api.get(SECRET).toString();
        // e.g. the configuration was deleted and applied again from the bundle
        api.put(VALIDATING, webhookConfiguration("ValidatingWebhookConfiguration", "remold-validating",
                "validate.remold.io", "modrule.remold.io"));
        int writes = api.writes().size();

        Result result = runMain();
        assertThat(result.err(), result.code(), is(0));
        assertThat(api.writes().subList(writes, api.writes().size()), contains("PATCH " + VALIDATING));
        assertThat(api.get(SECRET).toString(), is(secretBefore));
        assertThat(result.out(), containsString("ValidatingWebhookConfiguration remold-validating: caBundle set in 2 of 2"));
    }

    @Test
    void aCertificateForAnotherServiceNameIsReplaced() {
        assertThat(runMain("--service", "old-name").code(), is(0));
        Result result = runMain();
        assertThat(result.err(), result.code(), is(0));
        assertThat(result.out(), containsString("the certificate does not name remold"));
        X509Certificate serving = Certificates.parseCertificates(secretData("tls.crt")).get(0);
        assertThat(Certificates.dnsNames(serving), containsInAnyOrder("remold", "remold.remold-system",
                "remold.remold-system.svc", "remold.remold-system.svc.cluster.local"));
    }

    @Test
    void forbiddenSecretReadIsAClearErrorWithExitCode1() {
        api.forbid("GET", SECRET);
        Result result = runMain();
        assertThat(result.code(), is(1));
        assertThat(result.err(), containsString("cannot get Secret remold-system/remold-tls: 403 Forbidden: "));
        assertThat(result.err(), containsString("system:serviceaccount:remold-system:remold-certgen"));
        assertThat(api.writes(), is(empty()));
    }

    @Test
    void forbiddenWebhookPatchNamesTheConfigurationAndLeavesTheSecretUnwritten() {
        api.forbid("PATCH", VALIDATING);
        Result result = runMain();
        assertThat(result.code(), is(1));
        assertThat(result.err(), containsString(
                "cannot patch ValidatingWebhookConfiguration remold-validating: 403 Forbidden"));
        assertThat(api.get(SECRET), is((JsonObject) null));
    }

    @Test
    void missingWebhookConfigurationIsNamed() {
        Result result = runMain("--mutating-webhook", "absent");
        assertThat(result.code(), is(1));
        assertThat(result.err(), containsString("cannot get MutatingWebhookConfiguration absent: 404 Not Found"));
    }

    @Test
    void unreachableApiServerExitsWith1() throws IOException {
        api.close();
        Result result = runMain();
        assertThat(result.code(), is(1));
        assertThat(result.err(), containsString("cannot get Secret remold-system/remold-tls: cannot reach the API server"));
    }

    static Stream<Arguments> invalidOptions() {
        return Stream.of(
                Arguments.of(new String[] {"--bogus"}, "unknown option --bogus"),
                Arguments.of(new String[] {"--secret"}, "option --secret needs a value"),
                Arguments.of(new String[] {"--namespace", "Not_A_Name"}, "option --namespace: 'Not_A_Name'"),
                Arguments.of(new String[] {"--validity", "1y"}, "option --validity: '1y' is not a duration"),
                Arguments.of(new String[] {"--validity", "30d", "--renew-before", "30d"}, "must be shorter than"));
    }

    @ParameterizedTest
    @MethodSource("invalidOptions")
    void invalidOptionsExitWithCode2(String[] args, String message) {
        var err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true,
                StandardCharsets.UTF_8));
        assertThat(code, is(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString(message));
    }

    @Test
    void helpListsEveryOptionAndExitsWith0WithoutCallingTheApiServer() {
        Result result = runMain("--help");
        assertThat(result.code(), is(0));
        for (String option : List.of("--namespace", "--secret", "--service", "--mutating-webhook",
                "--validating-webhook", "--validity", "--renew-before", "--kubeconfig")) {
            assertThat(result.out(), containsString(option));
        }
        assertThat(api.writes(), is(empty()));
    }

    @Test
    void unreadableKubeconfigExitsWith2() {
        var err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"--kubeconfig", dir.resolve("missing").toString()},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code, is(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("cannot configure the API client from"));
    }
}

package io.remold.server;

import io.remold.kinitiras.KinitirasOptions;
import io.remold.server.existing.ExistingApplyOptions;
import io.remold.server.log.LogFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The command line and the configuration precedence: flag, then environment, then application.yaml. */
class MainTest {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void helpListsEveryOptionWithItsEnvironmentVariable() {
        assertThat(run("--help"), is(0));
        assertThat(out.toString(StandardCharsets.UTF_8), containsString("--max-body-bytes"));
        assertThat(out.toString(StandardCharsets.UTF_8), containsString("[REMOLD_MAX_BODY_BYTES]"));
        assertThat(run("serve", "--help"), is(0));
    }

    @Test
    void versionEvalAndConvertAreTheCliCommands() {
        assertThat(run("version"), is(0));
        assertThat(out.toString(StandardCharsets.UTF_8), containsString("remold "));
        assertThat(run("eval", "--help"), is(0));
        assertThat(out.toString(StandardCharsets.UTF_8), containsString("--resource"));
        assertThat(run("convert", "--help"), is(0));
        assertThat(out.toString(StandardCharsets.UTF_8), containsString("--first-tier"));
        assertThat(run("test", "--help"), is(0));
        assertThat(out.toString(StandardCharsets.UTF_8), containsString("remold-test.yaml"));
    }

    @Test
    void previewRunsWithTheClusterSource() {
        assertThat(run("preview", "--help"), is(0));
        assertThat(out.toString(StandardCharsets.UTF_8), containsString("--kubeconfig FILE"));
        // the server's preview reads kubeconfigs (remold-cli.jar's says it needs this jar)
        assertThat(run("preview", "--rules", "../examples/rules", "--kubeconfig", "/no/such/kubeconfig", "--kind", "Pod"),
                is(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("remold preview: --kubeconfig"
                + " /no/such/kubeconfig: cannot read"));
    }

    @Test
    void playgroundIsDispatchedToItsCommand() {
        assertThat(run("playground", "--help"), is(0));
        assertThat(out.toString(StandardCharsets.UTF_8), containsString("--bind ADDRESS"));
        assertThat(run("playground", "--port", "http"), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("remold playground: --port expects a port"));
    }

    @Test
    void usageErrorsExitWith2AndSayWhy() {
        assertThat(run("frobnicate"), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("unknown command \"frobnicate\""));
        assertThat(run("serve", "--colour", "blue"), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("unknown option --colour"));
        assertThat(run("serve", "--port", "http"), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("port must be a whole number: \"http\""));
        assertThat(run("serve", "--tls-cert", "/x.crt"), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("tls-cert and tls-key must be given together"));
        assertThat(run("serve", "--impact-rate", "0"), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("impact-rate must be positive: 0"));
        assertThat(run("serve", "--impact-samples", "101"), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8),
                containsString("impact-samples must be between 0 and 100: 101"));
        assertThat(run("serve", "--log-level", "verbose"), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8),
                containsString("log-level must be error, warn, info or debug: \"verbose\""));
        assertThat(run("serve", "--log-format", "xml"), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("log-format must be json or text: \"xml\""));
    }

    @Test
    void defaultsComeFromApplicationYaml() {
        ServerConfig config = ServerConfig.load(Map.of(), Map.of());
        assertThat(config.port(), is(8443));
        assertThat(config.maxBodyBytes(), is(3L << 20));
        assertThat(config.maxBodyBytesInFlight(), is(32L << 20));
        assertThat(config.readTimeout(), is(Duration.ofSeconds(5)));
        assertThat(config.adminPort(), is(8081));
        assertThat(config.clientCa(), is(Optional.empty()));
        assertThat(config.systemNamespace(), is("remold-system"));
        assertThat(config.logFormat(), is(LogFormat.json));
        assertThat(config.logLevel(), is(io.remold.server.log.LogLevel.info));
        assertThat(config.rules(), is(Optional.empty()));
        assertThat(config.inCluster(), is(false));
        assertThat(config.shutdownGrace(), is(Duration.ofSeconds(10)));
        assertThat(config.existingApply(), is(new ExistingApplyOptions("remold-existing", 10)));
        assertThat(config.shadowCpuShare(), is(0.25));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-0.5", "1.01", "NaN", "Infinity", "quarter"})
    void theShadowCpuShareIsAFractionOfACore(String share) {
        assertThat(run("serve", "--shadow-cpu-share", share), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8),
                containsString("shadow-cpu-share must be a number above 0 and at most 1: \"" + share + "\""));
        assertThat(ServerConfig.load(Map.of("shadow-cpu-share", "1"), Map.of()).shadowCpuShare(), is(1.0));
        assertThat(ServerConfig.load(Map.of(), Map.of("REMOLD_SHADOW_CPU_SHARE", "0.05")).shadowCpuShare(),
                is(0.05));
    }

    @Test
    void theExistingApplyRateIsAtLeastOneAndTheFieldManagerNotBlank() {
        assertThat(run("serve", "--existing-apply-rate", "0"), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8),
                containsString("existing-apply-rate must be a whole number from 1: 0"));
        assertThat(run("serve", "--existing-field-manager", " "), is(2));
        assertThat(err.toString(StandardCharsets.UTF_8),
                containsString("existing-field-manager must be 1 to 128 characters: \"\""));
    }

    @Test
    void environmentOverridesTheFileAndFlagsOverrideBoth() {
        var env = Map.of("REMOLD_PORT", "9443", "REMOLD_MAX_BODY_BYTES", "1024", "REMOLD_RULES", "/env/rules",
                "REMOLD_LOG_FORMAT", "text");
        ServerConfig fromEnv = ServerConfig.load(Map.of(), env);
        assertThat(fromEnv.port(), is(9443));
        assertThat(fromEnv.maxBodyBytes(), is(1024L));
        assertThat(fromEnv.rules(), is(Optional.of(Path.of("/env/rules"))));
        assertThat(fromEnv.logFormat(), is(LogFormat.text));

        ServerConfig fromFlags = ServerConfig.load(Main.flags(new String[]{"--port=10443", "--rules", "examples/rules",
                "--in-cluster"}), env);
        assertThat(fromFlags.port(), is(10443));
        assertThat(fromFlags.rules(), is(Optional.of(Path.of("examples/rules"))));
        assertThat(fromFlags.inCluster(), is(true));
        assertThat(fromFlags.maxBodyBytes(), is(1024L));
    }

    /** F13: KubeMod's system namespace is honoured only with kubemod-compat. */
    @Test
    void theKubemodSystemNamespaceNeedsKubemodCompat() {
        assertThat(ServerConfig.load(Map.of(), Map.of()).kubemodSystem(), nullValue());
        assertThat(ServerConfig.load(Map.of("kubemod-compat", "true"), Map.of()).kubemodSystem(), is("kubemod-system"));
        assertThat(ServerConfig.load(Map.of("kubemod-compat", "true", "kubemod-system-namespace", "kubemod"), Map.of())
                .kubemodSystem(), is("kubemod"));
        assertThat(ServerConfig.load(Map.of("kubemod-system-namespace", "kubemod"), Map.of()).kubemodSystem(),
                nullValue());
    }

    /** Both kinitiras settings are off unless an administrator sets them, by flag or environment. */
    @Test
    void theKinitirasSettingsAreOffUnlessSet() {
        assertThat(ServerConfig.load(Map.of(), Map.of()).kinitiras(), is(KinitirasOptions.DEFAULTS));
        assertThat(ServerConfig.load(Main.flags(new String[]{"--kinitiras-cross-namespace-overrides"}),
                Map.of("REMOLD_KINITIRAS_WEBHOOK_LABEL", "true")).kinitiras(), is(new KinitirasOptions(true, true)));
    }

    @Test
    void clusterModeTakesOneWayToTheCluster() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> ServerConfig.load(Map.of("kubeconfig", "/k", "in-cluster", "true"), Map.of()));
        assertThat(e.getMessage(), is("kubeconfig and in-cluster exclude each other"));
    }
}

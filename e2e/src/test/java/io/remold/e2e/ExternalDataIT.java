package io.remold.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

/**
 * External data providers against the real API server: {@code remold.io} Providers pointing at {@link ProviderServer}
 * (HTTPS on loopback, trusted through the Provider's caBundle), read by ModRule templates ({@code external}: the
 * documented example {@code examples/external/mirror-images}) and by a
 * Gatekeeper Assign's {@code externalData}. A provider's answers are cached (each key asked once), faulty providers
 * (slow, huge, malformed, failing) cost a request at most the timeout and never hold up another request, and a
 * Provider that is not HTTPS is refused when it is created. The Providers serve the ModRules of two namespaces
 * ({@code spec.namespaces}): a rule in a third one is refused, fail closed, while the Assign (cluster-scoped) needs
 * no namespace. Objects are tried with {@code --dry-run=server}.
 */
@ExtendWith(Remold.class)
class ExternalDataIT {
    private static final String NAMESPACE = "e2e-external";
    private static final String FAULTS = "e2e-external-faults";
    private static final String GATEKEEPER = "e2e-external-gk";
    /** A namespace the Providers do not serve. */
    private static final String OTHER = "e2e-external-other";
    private static final Duration LOADED = Duration.ofSeconds(30);
    /** Providers that fail with policy Fail, and the rules that call them. */
    private static final Map<String, String> FAULTY = Map.of("e2e-slow", "no answer within 1s",
            "e2e-huge", "call to https://", "e2e-malformed", "malformed answer", "e2e-failing",
            "the provider answered HTTP 500");
    private static ProviderServer provider;

    @BeforeAll
    static void providers() {
        provider = new ProviderServer();
        Steps.ensureNamespace(NAMESPACE);
        Steps.ensureNamespace(FAULTS);
        Steps.ensureNamespace(GATEKEEPER);
        Steps.ensureNamespace(OTHER);
        Cluster.apply(String.join("---\n",
                providerManifest("registry-mirror", "/mirror", "2s", "Fail"),
                providerManifest("e2e-slow", "/slow", "1s", "Fail"),
                providerManifest("e2e-slow-ignored", "/slow", "2s", "Ignore"),
                providerManifest("e2e-huge", "/huge", "2s", "Fail"),
                providerManifest("e2e-malformed", "/malformed", "2s", "Fail"),
                providerManifest("e2e-failing", "/failing", "2s", "Fail")));
    }

    @AfterAll
    static void deleteProviders() {
        Cluster.kubectl("delete", "providers.remold.io", "registry-mirror", "e2e-slow", "e2e-slow-ignored", "e2e-huge",
                "e2e-malformed", "e2e-failing", "--ignore-not-found").run();
        provider.close();
    }

    @Test
    void theDocumentedRuleMapsEveryImageThroughTheProviderAndAsksEachImageOnce(Remold.Installation remold) {
        // docs/modrules.md's example, in this scenario's namespace; its Provider is registry-mirror above.
        String rule = Cluster.read(Cluster.REPO.resolve("examples/external/mirror-images/rule.yaml"))
                .replace("namespace: shop", "namespace: " + NAMESPACE);
        withRules(remold, rule, NAMESPACE + "/mirror-images", () -> {
            Wait.until("the Provider to be loaded and the Pod's images mirrored", LOADED,
                    () -> images(NAMESPACE, "web").startsWith("mirror.example.com/"));
            assertThat(images(NAMESPACE, "web"), equalTo("mirror.example.com/nginx:1.27 mirror.example.com/busybox:1.36"));
            assertThat(images(NAMESPACE, "api"), equalTo("mirror.example.com/nginx:1.27 mirror.example.com/busybox:1.36"));
            assertThat("an image is asked once per cache TTL, whatever the number of Pods", provider.asked("nginx:1.27"),
                    is(1));
            assertThat(provider.asked("busybox:1.36"), is(1));
        });
    }

    @Test
    void faultyProvidersCostARequestAtMostTheirTimeoutAndNeverHoldUpAnother(Remold.Installation remold) {
        // A rule per provider: a rule stops at its first failing operation.
        var faults = new StringBuilder();
        for (String name : FAULTY.keySet()) {
            faults.append(rule(FAULTS, name, """
                      match:
                      - {select: '$.kind', matchValue: Pod}
                      patch:
                      - {op: add, path: /metadata/annotations/%1$s, value: '{{ external "%1$s" Target.metadata.name }}'}
                    """.formatted(name))).append("---\n");
        }
        faults.append(rule(FAULTS, "e2e-slow-ignored", """
                  match:
                  - {select: '$.kind', matchValue: Pod}
                  patch:
                  - {op: add, path: /metadata/annotations/ignored, value: '{{ external "e2e-slow-ignored" Target.metadata.name | default "fallback" }}'}
                """)).append("---\n");
        String fine = rule(NAMESPACE, "mirror-images", """
                  match:
                  - {select: '$.kind', matchValue: Pod}
                  patch:
                  - {op: add, path: /metadata/annotations/mirrored, value: '{{ external "registry-mirror" Target.metadata.name }}'}
                """);
        withRules(remold, faults + fine, FAULTS + "/e2e-slow-ignored", NAMESPACE + "/mirror-images", () -> {
            Wait.until("the Providers to be loaded", LOADED,
                    () -> annotation(NAMESPACE, "warm-up", "mirrored").startsWith("mirror.example.com/"));
            long start = System.nanoTime();
            CompletableFuture<Command.Result> faulty = CompletableFuture.supplyAsync(() -> pod(FAULTS, "checkout")
                    .run());
            sleep(500);
            // While the faulty request waits on the slow provider, another namespace's request is answered.
            assertThat(annotation(NAMESPACE, "concurrent", "mirrored"), equalTo("mirror.example.com/concurrent"));
            assertThat("the other request finished first", faulty.isDone(), is(false));
            Command.Result result = faulty.join();
            long elapsed = Duration.ofNanos(System.nanoTime() - start).toMillis();

            // A Patch rule whose provider fails changes nothing and warns; the request goes through in time.
            assertThat(result.toString(), result.ok(), is(true));
            assertThat("3 s of provider timeouts plus kubectl", elapsed, lessThan(9_000L));
            for (var failed : FAULTY.entrySet()) {
                assertThat(result.stderr(), containsString("external \"" + failed.getKey() + "\" key \"checkout\": "
                        + failed.getValue()));
            }
            assertThat(result.stderr(), containsString("the answer is larger than 1024 KiB"));
            assertThat(result.stdout(), equalTo("fallback"));
        });
    }

    @Test
    void aRuleInANamespaceTheProviderDoesNotServeIsRefusedAndChangesNothing(Remold.Installation remold) {
        String rule = Cluster.read(Cluster.REPO.resolve("examples/external/mirror-images/rule.yaml"))
                .replace("namespace: shop", "namespace: " + OTHER);
        String refusal = "external \"registry-mirror\" key \"nginx:1.27\": Provider registry-mirror does not serve"
                + " rules in namespace " + OTHER + " (its spec.namespaces)";
        withRules(remold, rule, OTHER + "/mirror-images", () -> {
            Wait.until("the Provider to be loaded and the rule refused", LOADED,
                    () -> imagesAndWarnings(OTHER, "web").stderr().contains(refusal));
            Command.Result result = imagesAndWarnings(OTHER, "web");
            assertThat(result.toString(), result.ok(), is(true));
            assertThat(result.stderr(), containsString(refusal));
            assertThat(result.stdout().strip(), equalTo("nginx:1.27 busybox:1.36"));
        });
    }

    @Test
    void aGatekeeperAssignTakesItsValueFromTheProvider(Remold.Installation remold) {
        String assign = """
                apiVersion: mutations.gatekeeper.sh/v1
                kind: Assign
                metadata: {name: e2e-external-images}
                spec:
                  applyTo: [{groups: [''], kinds: [Pod], versions: [v1]}]
                  match: {scope: Namespaced, namespaces: [%s]}
                  location: 'spec.containers[name:*].image'
                  parameters:
                    assign:
                      externalData: {provider: registry-mirror, dataSource: ValueAtLocation, failurePolicy: Fail}
                """.formatted(GATEKEEPER);
        Cluster.apply(assign);
        try {
            var wait = Cluster.kubectl("wait", "--for=condition=Ready=True", "assign.mutations.gatekeeper.sh/"
                    + "e2e-external-images", "--timeout=30s").run();
            assertThat(wait + "\n" + remold.server().logTail(30), wait.ok(), is(true));
            remold.server().awaitRulesInSync();
            Wait.until("the Assign to mirror the Pod's images", LOADED,
                    () -> images(GATEKEEPER, "gk").startsWith("mirror.example.com/"));
            assertThat(images(GATEKEEPER, "gk"), equalTo("mirror.example.com/nginx:1.27 mirror.example.com/busybox:1.36"));
        } finally {
            Cluster.kubectl("delete", "assign.mutations.gatekeeper.sh", "e2e-external-images", "--ignore-not-found")
                    .run();
            remold.server().awaitRulesInSync();
        }
    }

    @Test
    void aProviderThatIsNotHttpsIsRefusedWhenItIsCreated() {
        var refused = Cluster.kubectl("apply", "-f", "-").withInput("""
                apiVersion: remold.io/v1beta1
                kind: Provider
                metadata: {name: e2e-plain-http}
                spec:
                  url: http://127.0.0.1:8080/lookup
                """).run();
        assertThat(refused.toString(), refused.ok(), is(false));
        assertThat(refused.stderr(), containsString("spec.url"));
        assertThat(refused.stderr(), containsString("https"));
        assertThat(Cluster.kubectl("get", "providers.remold.io", "e2e-plain-http").run().ok(), is(false));
    }

    private static String providerManifest(String name, String path, String timeout, String failurePolicy) {
        return """
                apiVersion: remold.io/v1beta1
                kind: Provider
                metadata: {name: %s}
                spec:
                  url: %s
                  caBundle: %s
                  timeout: %s
                  cacheTTL: 10m
                  failurePolicy: %s
                  namespaces: [%s, %s]
                """.formatted(name, provider.url(path), ProviderServer.caBundle(), timeout, failurePolicy, NAMESPACE,
                FAULTS);
    }

    private static String rule(String namespace, String name, String spec) {
        return """
                apiVersion: remold.io/v1beta1
                kind: ModRule
                metadata: {name: %s, namespace: %s}
                spec:
                  type: Patch
                %s""".formatted(name, namespace, spec);
    }

    /** Applies the rules, waits for each (NAMESPACE/NAME) to be Ready and held by the server, runs the checks, deletes them. */
    private static void withRules(Remold.Installation remold, String rules, String first, String second,
                                  Runnable checks) {
        withRules(remold, rules, List.of(first, second), checks);
    }

    private static void withRules(Remold.Installation remold, String rules, String rule, Runnable checks) {
        withRules(remold, rules, List.of(rule), checks);
    }

    private static void withRules(Remold.Installation remold, String rules, List<String> names, Runnable checks) {
        Cluster.apply(rules);
        try {
            for (String rule : names) {
                Steps.awaitReady(rule.substring(rule.indexOf('/') + 1), rule.substring(0, rule.indexOf('/')));
            }
            remold.server().awaitRulesInSync();
            checks.run();
        } finally {
            Cluster.kubectl("delete", "-f", "-", "--ignore-not-found").withInput(rules).run();
            remold.server().awaitRulesInSync();
        }
    }

    private static Command pod(String namespace, String name) {
        return Cluster.kubectl("create", "--dry-run=server", "-o", "jsonpath={.metadata.annotations.ignored}", "-f", "-")
                .withInput(podManifest(namespace, name));
    }

    private static String annotation(String namespace, String name, String annotation) {
        return Cluster.kubectl("create", "--dry-run=server", "-o", "jsonpath={.metadata.annotations." + annotation + "}",
                "-f", "-").withInput(podManifest(namespace, name)).run().orFail().stdout().strip();
    }

    /** The Pod's images as the API server would store them, and the warnings of the request. */
    private static Command.Result imagesAndWarnings(String namespace, String name) {
        return Cluster.kubectl("create", "--dry-run=server", "-o", "jsonpath={.spec.containers[*].image}", "-f", "-")
                .withInput(podManifest(namespace, name)).run();
    }

    private static String images(String namespace, String name) {
        return imagesAndWarnings(namespace, name).orFail().stdout().strip();
    }

    private static String podManifest(String namespace, String name) {
        return """
                apiVersion: v1
                kind: Pod
                metadata: {name: %s, namespace: %s}
                spec:
                  containers:
                  - {name: app, image: 'nginx:1.27'}
                  - {name: sidecar, image: 'busybox:1.36'}
                """.formatted(name, namespace);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

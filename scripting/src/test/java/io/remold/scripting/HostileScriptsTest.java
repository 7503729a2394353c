package io.remold.scripting;

import io.remold.engine.Decision;
import io.remold.engine.Engine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static io.remold.scripting.ScriptIsolationTest.await;
import static io.remold.scripting.ScriptsTest.POD;
import static io.remold.scripting.ScriptsTest.create;
import static io.remold.scripting.ScriptsTest.engine;
import static io.remold.scripting.ScriptsTest.rule;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.anyOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

/**
 * Scripts that try to reach the host or exhaust the server: each fails its own rule only (a mutation is skipped
 * with the reason, a validation refuses with it), and the other rules still decide.
 */
class HostileScriptsTest {
    private static final long NO_STATEMENT_BOUND = Long.MAX_VALUE / 2;
    private static final String ALLOW = "function jsa_validate(obj) { return {Allowed: true}; }";

    private static ScriptHost host(Duration deadline, long statements, long bytes) {
        return Scripts.host(new ScriptLimits(deadline, deadline.multipliedBy(3), statements, bytes, 2));
    }

    private static String refusal(ScriptHost host, String js) {
        Decision d = engine(host, rule("ClusterJsAdmission", null, "hostile", null, js)).validate(create(POD));
        assertThat(d.allowed(), is(false));
        return d.rejections().getFirst().message();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "Java.type('java.lang.System').exit(1)",
            "Polyglot.eval('js', '1')",
            "require('fs').readFileSync('/etc/passwd')",
            "load('/etc/passwd')",
            "print('x')",
            "console.log('x')",
            "process.env.HOME",
            "new java.io.File('/').list()",
            "Packages.java.lang.Runtime.getRuntime().exec('id')",
            "readFully('/etc/passwd')",
            "quit()",
            "new Worker('x.js')",
            "Graal.versionJS",
            "fetch('http://localhost/')",
    })
    void noHostAccess(String attempt) {
        try (ScriptHost host = host(Duration.ofSeconds(30), 10_000_000, 1L << 30)) {
            String js = "function jsa_validate(obj) { var r = " + attempt + "; return {Allowed: false, Message:"
                    + " 'reached the host: ' + r}; }";
            assertThat(attempt, refusal(host, js), anyOf(containsString("ReferenceError"),
                    containsString("TypeError"), containsString("is not defined"), containsString("not a function")));
        }
    }

    @Test
    void aLoopForeverIsStoppedByTheStatementBound() {
        try (ScriptHost host = host(Duration.ofSeconds(60), 100_000, 1L << 30)) {
            assertThat(refusal(host, "function jsa_validate(obj) { while (true) {} }"),
                    containsString("Statement count limit of 100000 exceeded"));
        }
    }

    @Test
    void aLoopForeverIsStoppedByTheDeadline() {
        try (ScriptHost host = host(Duration.ofMillis(300), NO_STATEMENT_BOUND, 1L << 30)) {
            assertThat(refusal(host, "function jsa_validate(obj) { for (;;) { Math.random(); } }"),
                    containsString("exceeded its time limit of 300 ms"));
        }
    }

    @Test
    void allocatingWithoutEndIsStoppedByTheMemoryBound() {
        try (ScriptHost host = host(Duration.ofSeconds(60), NO_STATEMENT_BOUND, 16L << 20)) {
            // 200 KB a turn: the bound, not the request's budget, ends it even while the compiler warms up (the
            // compiled-runtime run), on a loaded machine.
            assertThat(refusal(host, "function jsa_validate(obj) { var a = [];"
                            + " for (;;) { a.push('x'.repeat(100000) + a.length); } }"),
                    containsString("allocated more than its memory bound of 16 MiB"));
        }
    }

    @Test
    void aHostileMutationFailsOpenAndTheOthersStillApply() {
        try (ScriptHost host = host(Duration.ofMillis(300), NO_STATEMENT_BOUND, 1L << 30)) {
            ScriptRule loop = rule("ClusterJsAdmission", null, "a-loop", null,
                    "function jsa_mutate(obj) { while (true) {} }");
            ScriptRule label = rule("ClusterJsAdmission", null, "b-label", null,
                    "function jsa_mutate(obj) { obj.metadata.labels = {ok: 'yes'}; return {Result: obj}; }");
            Engine engine = engine(host, loop, label);
            Decision d = engine.mutate(create(POD));
            assertThat(d.allowed(), is(true));
            assertThat(d.patch(), hasSize(1));
            assertThat(d.outcomes().getFirst().error(), containsString("exceeded its time limit"));
            assertThat(d.outcomes().get(1).error(), nullValue());
        }
    }

    @Test
    void aStuckScriptDoesNotStallOtherRules() throws Exception {
        try (ScriptHost host = host(Duration.ofSeconds(2), NO_STATEMENT_BOUND, 1L << 30)) {
            Engine stuck = engine(host, rule("ClusterJsAdmission", null, "stuck", null,
                    "function jsa_validate(obj) { for (;;) {} }"));
            Engine fine = Engine.builder().stage(
                    Scripts.host(ScriptsTest.GENEROUS).stage(java.util.List.of(
                            rule("ClusterJsAdmission", null, "fine", null, ALLOW)))).build();
            CompletableFuture<Decision> blocked = CompletableFuture.supplyAsync(() -> stuck.validate(create(POD)));
            // Decided while the other host's thread spins (its own pool; the engine has no shared lock).
            assertThat(fine.validate(create(POD)).allowed(), is(true));
            assertThat(blocked.get().allowed(), is(false));
        }
    }

    @Test
    void aScriptWhoseTopLevelLoopsFailsItsRuleOnly() throws InterruptedException {
        try (ScriptHost host = host(Duration.ofMillis(300), NO_STATEMENT_BOUND, 1L << 30)) {
            Engine engine = engine(host, rule("ClusterJsAdmission", null, "hostile", null,
                    "while (true) {}\n" + ALLOW));
            // The rule joins once its start has ended (at its start-up budget): polled, not slept.
            var last = new AtomicReference<Decision>();
            await(() -> !last.updateAndGet(previous -> engine.validate(create(POD))).allowed());
            assertThat(last.get().rejections().getFirst().message(), containsString("jsa_validate"));
        }
    }

    @Test
    void stateCannotBeUsedToReachOtherRules() {
        try (ScriptHost host = host(Duration.ofSeconds(30), 10_000_000, 1L << 30)) {
            ScriptRule writer = rule("ClusterJsAdmission", null, "writer", null, """
                    function jsa_init(state) { state.secret = 42; globalThis.leak = 1; }
                    function jsa_validate(obj) { return {Allowed: true}; }
                    """);
            ScriptRule reader = rule("ClusterJsAdmission", null, "reader", null, """
                    function jsa_validate(obj, state) {
                      return {Allowed: false, Message: String(state.secret) + "," + typeof leak};
                    }
                    """);
            assertThat(engine(host, writer, reader).validate(create(POD)).rejections().getFirst().message(),
                    is("undefined,undefined"));
        }
    }
}

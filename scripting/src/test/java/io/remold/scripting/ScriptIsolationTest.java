package io.remold.scripting;

import io.remold.engine.AdmissionRequest;
import io.remold.engine.Decision;
import io.remold.engine.Engine;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;

import static io.remold.scripting.ScriptsTest.POD;
import static io.remold.scripting.ScriptsTest.engine;
import static io.remold.scripting.ScriptsTest.json;
import static io.remold.scripting.ScriptsTest.rule;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The review's attacks on the sandbox (F1, F7, F8, F20) and what keeps one tenant's script from the others: each
 * fails its own rule only, with a reason naming the bound.
 */
class ScriptIsolationTest {
    private static final String ALLOW = "function jsa_validate(obj) { return {Allowed: true}; }";
    private static final JsonObject TEAM_A_POD = json("{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p',"
            + "'namespace':'team-a'},'spec':{'containers':[{'name':'c','image':'nginx'}]}}");

    private static ScriptLimits limits(Duration deadline, int threads) {
        return new ScriptLimits(deadline, deadline.multipliedBy(3), Long.MAX_VALUE / 2, 1L << 30, threads);
    }

    private static AdmissionRequest teamA() {
        return AdmissionRequest.create("team-a", TEAM_A_POD);
    }

    private static long in(Duration d) {
        return System.nanoTime() + d.toNanos();
    }

    /** Polls {@code condition}, something a script thread does, until it holds; the 20 s bound is for a broken build. */
    static void await(BooleanSupplier condition) throws InterruptedException {
        long end = in(Duration.ofSeconds(20));
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("condition not met within 20 s");
            }
            Thread.sleep(10);
        }
    }

    /** F1: the review's rule, a 1 GiB ArrayBuffer at top level, fails only its rule, naming the bound. */
    @Test
    void aHugeBufferAtTopLevelFailsItsRuleOnly() {
        try (ScriptHost host = Scripts.host(ScriptsTest.GENEROUS)) {
            Engine engine = engine(host,
                    rule("JsAdmission", "team-a", "big", null, "var b = new ArrayBuffer(1 << 30);\n"
                            + "function jsa_validate(op, obj) { return; }"),
                    rule("JsAdmission", "team-a", "other", null,
                            "function jsa_validate(obj) { return {Allowed: false, Message: 'other ran'}; }"));
            Decision d = engine.validate(teamA());
            assertThat(d.rejections().get(0).message(), containsString("16 MiB per ArrayBuffer"));
            assertThat(d.rejections().get(1).message(), is("other ran"));
            // Not run again in a new sandbox: the rule fails at once, with why.
            assertThat(engine.validate(teamA()).rejections().get(0).message(),
                    containsString("its top level failed, so the script is not run again"));
        }
    }

    /** F1, F7: typed arrays and strings are bounded in size, whatever the memory bound per call. */
    @Test
    void typedArraysAndStringsAreBoundedInSize() {
        try (ScriptHost host = Scripts.host(ScriptsTest.GENEROUS)) {
            for (String allocation : new String[] {"new Uint8Array(40 * 1024 * 1024)", "new Float64Array(1 << 22)",
                    "new ArrayBuffer(16, {maxByteLength: 1 << 30})", "'x'.repeat(1 << 24)"}) {
                Decision d = engine(host, rule("JsAdmission", "team-a", "alloc", null,
                        "function jsa_validate(obj) { var a = " + allocation + "; return {Allowed: true}; }"))
                        .validate(teamA());
                assertThat(allocation, d.allowed(), is(false));
                assertThat(allocation, d.rejections().getFirst().message(), containsString("the sandbox's bounds"));
            }
        }
    }

    /** F7: a sandbox whose globals may hold more than its life's bound is not kept for the next call. */
    @Test
    void aSandboxThatAllocatedMuchIsNotKept() throws Exception {
        ScriptRule hoarder = rule("JsAdmission", "team-a", "hoard", null, """
                var hoard = [];
                function jsa_validate(op, obj) {
                  var a = new Uint8Array(15 * 1024 * 1024); a[0] = 1; hoard.push(a);
                  return {Allowed: true};
                }""");
        try (var calls = new Calls(ScriptsTest.GENEROUS)) {
            var runtime = new RuleRuntime(hoarder, calls, ScriptsTest.GENEROUS);
            var pod = TEAM_A_POD;
            for (int i = 0; i < 5; i++) {
                runtime.call("jsa_validate", "CREATE", pod, null, in(Duration.ofSeconds(30)));
                assertThat(runtime.idleSandboxes(), is(0));
            }
            var small = new RuleRuntime(rule("JsAdmission", "team-a", "small", null, ALLOW), calls,
                    ScriptsTest.GENEROUS);
            small.call("jsa_validate", "CREATE", pod, null, in(Duration.ofSeconds(30)));
            assertThat(small.idleSandboxes(), is(1));
        }
    }

    /** F7: the state is bounded at write-back: the call fails and the state stays as it was. */
    @Test
    void aStateOverItsBoundFailsTheCallAndStaysAsItWas() {
        try (ScriptHost host = Scripts.host(ScriptsTest.GENEROUS)) {
            ScriptRule grower = rule("JsAdmission", "team-a", "grow", null, """
                    function jsa_validate(op, obj, sync, state) {
                      state.chunks = state.chunks || [];
                      state.chunks.push('x'.repeat(3 * 1024 * 1024));
                      return { Allowed: true };
                    }""");
            Decision d = engine(host, grower).validate(teamA());
            assertThat(d.rejections().getFirst().message(), containsString("over the bound of 1048576"));
            assertThat(host.state(grower.id()), is("{}"));
        }
    }

    /** F8: BigInt, whose operations run for seconds in one step, is not there: a literal is a syntax error. */
    @Test
    void bigIntIsOff() {
        var e = assertThrows(InvalidScriptException.class, () -> rule("JsAdmission", "team-a", "big", null,
                "function jsa_validate(op, obj) { var x = 10n ** 25000000n; return {Allowed: true}; }"));
        assertThat(e.getMessage(), containsString("syntax error"));
        try (ScriptHost host = Scripts.host(ScriptsTest.GENEROUS)) {
            Decision d = engine(host, rule("JsAdmission", "team-a", "big", null,
                    "function jsa_validate(op, obj) { var x = BigInt(10); return {Allowed: true}; }"))
                    .validate(teamA());
            assertThat(d.rejections().getFirst().message(), containsString("BigInt is not defined"));
        }
    }

    /** F20: no Java or package globals. */
    @Test
    void noJavaOrPackageGlobals() {
        try (ScriptHost host = Scripts.host(ScriptsTest.GENEROUS)) {
            Decision d = engine(host, rule("ClusterJsAdmission", null, "globals", null, """
                    function jsa_validate(obj) {
                      var found = ['Java', 'Packages', 'java', 'javax', 'javafx', 'com', 'org', 'edu']
                          .filter(function (n) { return n in globalThis; });
                      return {Allowed: false, Message: 'found: ' + found.join(',')};
                    }""")).validate(AdmissionRequest.create("default", POD));
            assertThat(d.rejections().getFirst().message(), is("found: "));
        }
    }

    /**
     * F8: a call that ignores cancellation (as a long builtin does) is not waited for: its caller returns at the
     * deadline, its thread is given up and replaced, so the next call still runs; it is back once it ends.
     */
    @Test
    void aCallThatCannotBeStoppedIsGivenUpAndItsThreadReplaced() throws Exception {
        var release = new CountDownLatch(1);
        try (var calls = new Calls(limits(Duration.ofMillis(200), 1))) {
            var entered = new CountDownLatch(1);
            while (entered.getCount() > 0) { // a call that waited past its deadline for a thread never runs: again
                var stuck = CompletableFuture.runAsync(() -> assertThrows(Calls.Failed.class,
                        () -> calls.run(null, in(Duration.ofMillis(200)), call -> {
                            entered.countDown();
                            release.await(); // a builtin that no cancellation reaches
                            return null;
                        })));
                stuck.get(); // the caller did not wait for the body
            }
            await(() -> calls.abandoned() == 1);
            assertThat(calls.run(null, in(Duration.ofSeconds(20)), call -> "ran"), is("ran"));
            release.countDown();
            await(() -> calls.abandoned() == 0);
        }
    }

    /** F8: beyond the cap of threads given up, calls fail at once with why. */
    @Test
    void beyondTheCapOfThreadsGivenUpCallsFailAtOnce() throws Exception {
        var release = new CountDownLatch(1);
        try (var calls = new Calls(limits(Duration.ofMillis(100), 1))) {
            while (calls.abandoned() < Calls.MAX_ABANDONED) {
                int before = calls.abandoned();
                var entered = new CountDownLatch(1);
                assertThrows(Calls.Failed.class, () -> calls.run(null, in(Duration.ofMillis(100)), call -> {
                    entered.countDown();
                    release.await();
                    return null;
                }));
                // On a loaded machine the call may wait past its 100 ms for a thread, and then never runs: try again.
                if (entered.getCount() == 0) {
                    await(() -> calls.abandoned() > before);
                }
            }
            var refused = assertThrows(Calls.Failed.class, () -> calls.run(null, in(Duration.ofSeconds(20)),
                    call -> "ran"));
            assertThat(refused.getMessage(), containsString("could not be stopped"));
            release.countDown();
            await(() -> calls.abandoned() == 0);
            assertThat(calls.run(null, in(Duration.ofSeconds(20)), call -> "ran"), is("ran"));
        }
    }

    /** A namespace's calls hold at most its quota of threads; another namespace's and cluster-wide calls still run. */
    @Test
    void oneNamespaceCannotHoldEveryThread() throws Exception {
        var release = new CountDownLatch(1);
        var started = new CountDownLatch(1);
        try (var calls = new Calls(limits(Duration.ofSeconds(20), 2))) {
            assertThat(calls.tenantQuota(), is(1));
            var holding = CompletableFuture.supplyAsync(() -> {
                try {
                    return calls.run("team-a", in(Duration.ofSeconds(20)), call -> {
                        started.countDown();
                        release.await();
                        return "held";
                    });
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            started.await();
            var refused = assertThrows(Calls.Failed.class,
                    () -> calls.run("team-a", in(Duration.ofMillis(100)), call -> "second"));
            assertThat(refused.getMessage(), containsString("namespace team-a has its 1 script call(s) in flight"));
            assertThat(calls.run("team-b", in(Duration.ofSeconds(20)), call -> "b"), is("b"));
            release.countDown();
            assertThat(holding.get(), is("held"));
        }
    }

    /** A tenant's rule whose call overran fails at once for a while; the administrator's are not quarantined. */
    @Test
    void aTenantRuleThatOverranIsQuarantined() {
        try (ScriptHost host = Scripts.host(limits(Duration.ofMillis(200), 2))) {
            String loop = "function jsa_validate(obj) { for (;;) {} }";
            Engine engine = engine(host, rule("JsAdmission", "team-a", "loop", null, loop),
                    rule("ClusterJsAdmission", null, "admin-loop", null, loop));
            Decision first = engine.validate(teamA());
            assertThat(first.rejections().get(0).message(), containsString("exceeded its time limit of 200 ms"));
            Decision second = engine.validate(teamA());
            assertThat(second.rejections().get(0).message(), containsString("quarantined for 30 s after a call"));
            assertThat(second.rejections().get(1).message(), containsString("exceeded its time limit of 200 ms"));
        }
    }

    /** S1: rules not yet run when the request's deadline has passed fail with why, without running. */
    @Test
    void aSpentRequestBudgetFailsTheRulesNotYetRun() {
        try (ScriptHost host = Scripts.host(ScriptsTest.GENEROUS)) {
            ScriptRule patch = rule("ClusterJsAdmission", null, "label", null,
                    "function jsa_mutate(obj) { obj.metadata.labels = {a: 'b'}; return {Result: obj}; }");
            ScriptRule check = rule("ClusterJsAdmission", null, "check", null, ALLOW);
            Engine engine = engine(host, patch, check);
            long spent = System.nanoTime();
            Decision mutation = engine.mutate(teamA(), spent);
            assertThat(mutation.allowed(), is(true));
            assertThat(mutation.patch().isEmpty(), is(true));
            assertThat(mutation.outcomes().getFirst().error(), containsString("the request budget is spent"));
            Decision validation = engine.validate(teamA(), spent);
            assertThat(validation.allowed(), is(false));
            assertThat(validation.rejections().getFirst().message(), containsString("the request budget is spent"));
            assertThat(engine.mutate(teamA(), in(Duration.ofSeconds(30))).outcomes().getFirst().error(), nullValue());
        }
    }

    /**
     * F9: a script whose top level runs long does not hold up the rule set: the stage is there within its wait, the
     * other rules decide, and the slow rule joins once its start ended (here, failed at its start-up budget).
     */
    @Test
    void aSlowTopLevelDoesNotDelayTheOtherRules() throws Exception {
        try (ScriptHost host = Scripts.host(limits(Duration.ofMillis(300), 2))) {
            ScriptStage stage = host.stage(java.util.List.of(
                    rule("JsAdmission", "team-a", "slow", null, "for (;;) {}\n" + ALLOW),
                    rule("ClusterJsAdmission", null, "fast", null,
                            "function jsa_validate(obj) { return {Allowed: false, Message: 'fast ran'}; }")));
            Engine engine = Engine.builder().stage(stage).build();
            Decision meanwhile = engine.validate(teamA());
            assertThat(meanwhile.rejections().size(), is(1));
            assertThat(meanwhile.rejections().getFirst().message(), is("fast ran"));
            await(() -> engine.validate(teamA()).rejections().size() == 2);
            assertThat(engine.validate(teamA()).rejections().getFirst().message(),
                    containsString("its top level failed"));
        }
    }
}

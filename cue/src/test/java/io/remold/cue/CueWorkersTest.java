package io.remold.cue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.remold.cue.CueEvaluator.Owner.ADMINISTRATOR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real worker, through the supervisor: kinitiras's cases, CUE's errors, hostile policies, the http task. */
class CueWorkersTest {
    private static final CueWorkers CUE = new CueWorkers(CueLimits.DEFAULT);
    private static final String GOOD = "object: _\nname: object.metadata.name\n";
    /** Its evaluation holds its worker while its http task is answered: the test decides when it ends. */
    private static final String HELD = "processing: http: {url: \"http://a/\"}\nx: processing.output.y\n";
    private static final CueEvaluator.Owner TEAM_A = new CueEvaluator.Owner.Tenant("team-a");
    private static final CueEvaluator.Owner TEAM_B = new CueEvaluator.Owner.Tenant("team-b");
    /** 16 million comprehension steps in little memory: only the deadline stops it. */
    private static final String ENDLESS = "import \"list\"\nx: len([for i in list.Range(0, 4000, 1) "
            + "for j in list.Range(0, 4000, 1) if i*j == -1 {1}])\n";

    @AfterAll
    static void close() {
        CUE.close();
    }

    static List<JsonObject> kinitirasCases() throws Exception {
        try (InputStream in = CueWorkersTest.class.getResourceAsStream("kinitiras-cue-cases.json");
             var reader = Json.createReader(in)) {
            return reader.readObject().getJsonArray("cases").getValuesAs(JsonObject.class);
        }
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("kinitirasCases")
    void evaluatesAsKinitiras(JsonObject c) throws Exception {
        List<CueEvaluator.CueParameter> parameters = c.getJsonArray("parameters").getValuesAs(JsonObject.class)
                .stream().map(p -> new CueEvaluator.CueParameter(p.getString("name"), p.get("value"))).toList();
        JsonObject http = c.getJsonObject("http");
        CueEvaluator.HttpTasks tasks = http == null ? CueEvaluator.HttpTasks.REFUSED : request -> {
            assertEquals(http.getJsonObject("request"), request);
            return http.get("response");
        };
        CompiledCue cue = CUE.compile(c.getString("cue"), ADMINISTRATOR);
        if (c.containsKey("error")) {
            CueException e = assertThrows(CueException.class,
                    () -> CUE.evaluate(cue, parameters, c.getString("output"), deadline(10), tasks));
            assertEquals(c.getString("error"), e.getMessage());
        } else {
            assertEquals(c.get("value"), CUE.evaluate(cue, parameters, c.getString("output"), deadline(10), tasks));
        }
    }

    @Test
    void compileErrorsHaveCuesMessageAndPosition() {
        CueException e = assertThrows(CueException.class,
                () -> CUE.compile("a: {\n  b: 1 +\n}\n", ADMINISTRATOR));
        assertEquals("expected operand, found '}' (at 3:1)", e.getMessage());
    }

    @Test
    void evaluationErrorsHaveCuesMessageAndPositions() throws Exception {
        CueException conflict = assertThrows(CueException.class, () -> evaluate("a: 1\na: 2\n", "a"));
        assertEquals("a: conflicting values 2 and 1 (at 1:4, 2:4)", conflict.getMessage());
        CueException incomplete = assertThrows(CueException.class, () -> evaluate("x: int\n", "x"));
        assertEquals("cue: marshal error: x: cannot convert incomplete value \"int\" to JSON (at 1:4)",
                incomplete.getMessage());
    }

    @Test
    void endlessRecursionAndStructuralCyclesAreCuesErrors() {
        CueException recursion = assertThrows(CueException.class,
                () -> evaluate("#F: {n: int, out: (#F & {n: n + 1}).out}\nx: (#F & {n: 0}).out\n", "x"));
        assertEquals("structural cycle (at 1:20)", recursion.getMessage());
        CueException cycle = assertThrows(CueException.class, () -> evaluate("a: b: a\nx: a\n", "x"));
        assertEquals("a.b: structural cycle", cycle.getMessage());
    }

    @Test
    void anEvaluationPastItsDeadlineFailsAloneAndIsQuarantined() throws Exception {
        CompiledCue endless = CUE.compile(ENDLESS, ADMINISTRATOR);
        CueException overran = assertThrows(CueException.class,
                () -> CUE.evaluate(endless, List.of(), "x", deadline(2), CueEvaluator.HttpTasks.REFUSED));
        assertEquals("the evaluation overran its deadline, and its worker was stopped", overran.getMessage());
        assertGoodEvaluates();
        CueException quarantined = assertThrows(CueException.class,
                () -> CUE.evaluate(endless, List.of(), "x", deadline(60), CueEvaluator.HttpTasks.REFUSED));
        assertEquals("quarantined for 30 s after an evaluation that failed so: " + overran.getMessage(),
                quarantined.getMessage());
    }

    @Test
    void theMemoryBoundKillsTheWorkerAndTheNextEvaluationSucceeds() throws Exception {
        for (String hostile : List.of("import \"list\"\nx: list.Repeat([1], 100000000)\n",
                "import \"strings\"\nx: strings.Repeat(\"abcdefgh\", 100000000)\n")) {
            CompiledCue cue = CUE.compile(hostile, ADMINISTRATOR);
            CueException e = assertThrows(CueException.class, // a deadline far beyond the bound's reach
                    () -> CUE.evaluate(cue, List.of(), "x", deadline(120), CueEvaluator.HttpTasks.REFUSED));
            assertTrue(e.getMessage().startsWith("the CUE worker exited (code 2)"), e.getMessage());
            assertTrue(e.getMessage().endsWith("during the evaluation"), e.getMessage());
            assertGoodEvaluates();
        }
    }

    @Test
    void aLargeOutputIsRefused() {
        try (CueWorkers small = new CueWorkers(new CueLimits(1, 0, 0, 256L << 20, 1024, Duration.ofSeconds(10),
                Duration.ofSeconds(30)))) {
            CompiledCue huge = small.compile("import \"strings\"\nx: strings.Repeat(\"a\", 2000)\n",
                    ADMINISTRATOR);
            CueException e = assertThrows(CueException.class,
                    () -> small.evaluate(huge, List.of(), "x", deadline(10), CueEvaluator.HttpTasks.REFUSED));
            assertEquals("the output (2002 bytes) exceeds the bound of 1024 bytes", e.getMessage());
        } catch (CueException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void concurrentEvaluationsComplete() throws Exception {
        CompiledCue cue = CUE.compile(GOOD, ADMINISTRATOR);
        ExecutorService callers = Executors.newFixedThreadPool(6);
        try {
            List<Future<JsonValue>> results = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                String name = "pod-" + i;
                results.add(callers.submit(() -> CUE.evaluate(cue, List.of(object(name)), "name", deadline(30),
                        CueEvaluator.HttpTasks.REFUSED)));
            }
            for (int i = 0; i < results.size(); i++) {
                assertEquals(Json.createValue("pod-" + i), results.get(i).get());
            }
        } finally {
            callers.shutdown();
        }
    }

    @Test
    void refusedHttpTasksSayWhy() {
        CueException e = assertThrows(CueException.class, () -> evaluate(
                "processing: http: {method: \"GET\", url: \"http://example.com/\"}\nx: processing.output\n", "x"));
        assertEquals("fail to exec http task, http tasks are not allowed here", e.getMessage());
    }

    @Test
    void callsBeyondTheWorkersAndTheQueueFailAtOnce() throws Exception {
        try (CueWorkers one = new CueWorkers(limits(1, 0, 0))) {
            CompiledCue waiting = one.compile(HELD, ADMINISTRATOR);
            CompiledCue other = one.compile(GOOD, ADMINISTRATOR);
            var holder = Held.inWorker(one, waiting);
            CueException busy = assertThrows(CueException.class, () -> one.evaluate(other, List.of(object("a")),
                    "name", deadline(30), CueEvaluator.HttpTasks.REFUSED));
            assertEquals("all 1 CUE workers are busy; 0 of the administrator's evaluations wait already, the most"
                    + " that may", busy.getMessage());
            assertEquals(Json.createValue(1), holder.release());
        }
    }

    /**
     * A burst of requests for one slow cluster-wide policy (which every tenant's requests may run) holds at most all
     * workers but one: its second evaluation may not run, while another policy is evaluated on the free worker.
     */
    @Test
    void oneOfTheAdministratorsPoliciesHoldsAtMostAllWorkersButOne() throws Exception {
        try (CueWorkers two = new CueWorkers(limits(2, 0, 0))) {
            CompiledCue slow = two.compile(HELD, ADMINISTRATOR);
            var holder = Held.inWorker(two, slow);
            CueException refused = assertThrows(CueException.class, () -> two.evaluate(slow, List.of(), "x",
                    deadline(30), request -> Json.createObjectBuilder().add("y", 2).build()));
            assertEquals("this policy's evaluations hold 1 of the 2 CUE workers, the most one policy may; 0 of the"
                    + " administrator's evaluations wait already, the most that may", refused.getMessage());
            assertGoodEvaluates(two, ADMINISTRATOR);
            assertEquals(Json.createValue(1), holder.release());
        }
    }

    /**
     * Tenant a floods the tenants' worker with evaluations that hold it (each waits in its http task): the
     * administrator's policy runs at once on the worker kept for it, and tenant b's evaluation, queued after a's 15,
     * is the next to get the tenants' worker (round-robin by tenant), not the last.
     */
    @Test
    void aTenantsFloodWaitsBehindOtherTenantsAndNeverDelaysTheAdministrator() throws Exception {
        try (CueWorkers pool = new CueWorkers(CueLimits.DEFAULT)) {
            CompiledCue flood = pool.compile(HELD, TEAM_A);
            CompiledCue other = pool.compile(HELD, TEAM_B);
            Queue<String> holders = new ConcurrentLinkedQueue<>();
            CountDownLatch answer = new CountDownLatch(1);
            List<Held> calls = new ArrayList<>();
            calls.add(Held.start(pool, flood, "a", holders, answer));
            await(calls.getFirst().asked());
            for (int i = 1; i < 16; i++) {
                calls.add(Held.start(pool, flood, "a", holders, answer));
            }
            awaitWaiting(pool, 15);
            calls.add(Held.start(pool, other, "b", holders, answer));
            awaitWaiting(pool, 16);
            assertGoodEvaluates(pool, ADMINISTRATOR);
            answer.countDown();
            for (Held call : calls) {
                assertEquals(Json.createValue(1), call.join());
            }
            List<String> expected = new ArrayList<>(List.of("a", "b"));
            expected.addAll(Collections.nCopies(15, "a"));
            assertEquals(expected, List.copyOf(holders));
        }
    }

    /**
     * One tenant's evaluations (of two policies, and its compiles) hold at most all of the tenants' workers but one
     * (one at least); the administrator's run beside them, and so do another tenant's where the tenants have two.
     */
    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {2, 3})
    void twoPoliciesOfOneTenantHoldNoMoreThanItsShare(int workers) throws Exception {
        try (CueWorkers pool = new CueWorkers(limits(workers, 4, 0))) {
            CompiledCue first = pool.compile(HELD, TEAM_A);
            CompiledCue second = pool.compile(HELD + "z: 1\n", TEAM_A);
            var holder = Held.inWorker(pool, first);
            String share = "the evaluations of namespace team-a hold 1 of the " + workers + " CUE workers, the most one"
                    + " tenant may; 0 evaluations of namespace team-a wait already, the most one tenant's may";
            CueException refused = assertThrows(CueException.class, () -> pool.evaluate(second, List.of(), "x",
                    deadline(30), request -> Json.createObjectBuilder().add("y", 2).build()));
            assertEquals(share, refused.getMessage());
            assertEquals(share, assertThrows(CueException.class, () -> pool.compile(GOOD, TEAM_A)).getMessage());
            assertGoodEvaluates(pool, ADMINISTRATOR);
            if (workers == 3) {
                assertGoodEvaluates(pool, TEAM_B);
            } else {
                assertEquals("tenants' evaluations hold 1 of the 2 CUE workers, and one is kept for cluster-wide"
                        + " policies; 0 evaluations of namespace team-b wait already, the most one tenant's may",
                        assertThrows(CueException.class, () -> assertGoodEvaluates(pool, TEAM_B)).getMessage());
            }
            assertEquals(Json.createValue(1), holder.release());
        }
    }

    /**
     * One tenant's waiting evaluations are bounded (here 2) as well as the tenants' together (4), so that one tenant
     * cannot fill the queue; the queued ones get the worker in turns, a, b, a, b, a.
     */
    @Test
    void theQueueIsBoundedPerTenantAndInTotal() throws Exception {
        try (CueWorkers pool = new CueWorkers(limits(2, 4, 2))) {
            CompiledCue a = pool.compile(HELD, TEAM_A);
            CompiledCue b = pool.compile(HELD, TEAM_B);
            CompiledCue c = pool.compile(HELD, new CueEvaluator.Owner.Tenant("team-c"));
            Queue<String> holders = new ConcurrentLinkedQueue<>();
            CountDownLatch answer = new CountDownLatch(1);
            List<Held> calls = new ArrayList<>();
            calls.add(Held.start(pool, a, "a", holders, answer));
            await(calls.getFirst().asked());
            for (int i = 1; i <= 2; i++) {
                calls.add(Held.start(pool, a, "a", holders, answer));
                awaitWaiting(pool, i);
            }
            assertEquals("the evaluations of namespace team-a hold 1 of the 2 CUE workers, the most one tenant may;"
                    + " 2 evaluations of namespace team-a wait already, the most one tenant's may",
                    assertThrows(CueException.class, () -> pool.evaluate(a, List.of(), "x", deadline(30),
                            CueEvaluator.HttpTasks.REFUSED)).getMessage());
            for (int i = 1; i <= 2; i++) {
                calls.add(Held.start(pool, b, "b", holders, answer));
                awaitWaiting(pool, 2 + i);
            }
            assertEquals("tenants' evaluations hold 1 of the 2 CUE workers, and one is kept for cluster-wide"
                    + " policies; 4 evaluations of tenants wait already, the most that may",
                    assertThrows(CueException.class, () -> pool.evaluate(c, List.of(), "x", deadline(30),
                            CueEvaluator.HttpTasks.REFUSED)).getMessage());
            assertGoodEvaluates(pool, ADMINISTRATOR);
            answer.countDown();
            for (Held call : calls) {
                assertEquals(Json.createValue(1), call.join());
            }
            assertEquals(List.of("a", "b", "a", "b", "a"), List.copyOf(holders));
        }
    }

    @Test
    void nothingRunsBeforeTheFirstCompileAndCloseStopsTheWorkers() throws Exception {
        CueWorkers lazy = new CueWorkers(CueLimits.DEFAULT);
        assertFalse(lazy.running());
        CompiledCue cue = lazy.compile(GOOD, ADMINISTRATOR);
        assertTrue(lazy.running());
        lazy.evaluate(cue, List.of(object("a")), "name", deadline(10), CueEvaluator.HttpTasks.REFUSED);
        List<ProcessHandle> workers = lazy.workers();
        assertEquals(1, workers.size());
        lazy.close();
        for (ProcessHandle worker : workers) {
            worker.onExit().get(10, TimeUnit.SECONDS);
        }
        assertThrows(CueException.class, () -> lazy.compile(GOOD, ADMINISTRATOR));
    }

    /**
     * An evaluation of {@link #HELD} on a thread of its own: once it holds a worker, its http task adds
     * {@code label} to {@code holders} and waits for {@code answer}.
     */
    private record Held(Thread thread, CountDownLatch asked, CountDownLatch answer, AtomicReference<JsonValue> result) {
        static Held start(CueWorkers workers, CompiledCue cue, String label, Queue<String> holders,
                          CountDownLatch answer) {
            CountDownLatch asked = new CountDownLatch(1);
            AtomicReference<JsonValue> result = new AtomicReference<>();
            Thread thread = Thread.ofPlatform().start(() -> {
                try {
                    result.set(workers.evaluate(cue, List.of(), "x", deadline(30), request -> {
                        holders.add(label);
                        asked.countDown();
                        await(answer);
                        return Json.createObjectBuilder().add("y", 1).build();
                    }));
                } catch (CueException e) {
                    result.set(Json.createValue(e.getMessage()));
                }
            });
            return new Held(thread, asked, answer, result);
        }

        /** One that holds its worker when this returns, until {@link #release}. */
        static Held inWorker(CueWorkers workers, CompiledCue cue) {
            Held held = start(workers, cue, "", new ConcurrentLinkedQueue<>(), new CountDownLatch(1));
            await(held.asked);
            return held;
        }

        /** Answers the http task and returns what the evaluation gave. */
        JsonValue release() throws InterruptedException {
            answer.countDown();
            return join();
        }

        JsonValue join() throws InterruptedException {
            thread.join();
            return result.get();
        }
    }

    /** Until {@code count} evaluations wait for a worker (the threads that call are started just before). */
    private static void awaitWaiting(CueWorkers workers, int count) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (workers.waiting() != count) {
            assertTrue(System.nanoTime() - end < 0, "waiting: " + workers.waiting() + ", not " + count);
            Thread.yield();
        }
    }

    private static void assertGoodEvaluates(CueWorkers workers, CueEvaluator.Owner owner) throws CueException {
        assertEquals(Json.createValue("web"), workers.evaluate(workers.compile(GOOD, owner), List.of(object("web")),
                "name", deadline(10), CueEvaluator.HttpTasks.REFUSED));
    }

    private static CueLimits limits(int workers, int queue, int queuePerTenant) {
        return new CueLimits(workers, queue, queuePerTenant, 256L << 20, 4096, Duration.ofSeconds(10),
                Duration.ofSeconds(30));
    }

    private static void assertGoodEvaluates() throws CueException {
        assertGoodEvaluates(CUE, ADMINISTRATOR);
    }

    private static JsonValue evaluate(String source, String output) throws CueException {
        return CUE.evaluate(CUE.compile(source, ADMINISTRATOR), List.of(), output, deadline(10),
                CueEvaluator.HttpTasks.REFUSED);
    }

    private static CueEvaluator.CueParameter object(String name) {
        return new CueEvaluator.CueParameter("object", Json.createObjectBuilder()
                .add("metadata", Json.createObjectBuilder().add("name", name)).build());
    }

    private static long deadline(int seconds) {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}

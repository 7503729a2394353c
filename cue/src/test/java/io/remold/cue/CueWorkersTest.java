package io.remold.cue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real worker, through the supervisor: kinitiras's cases, CUE's errors, hostile policies, the http task. */
class CueWorkersTest {
    private static final CueWorkers CUE = new CueWorkers(CueLimits.DEFAULT);
    private static final String GOOD = "object: _\nname: object.metadata.name\n";
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
        CompiledCue cue = CUE.compile(c.getString("cue"));
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
        CueException e = assertThrows(CueException.class, () -> CUE.compile("a: {\n  b: 1 +\n}\n"));
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
        CompiledCue endless = CUE.compile(ENDLESS);
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
            CompiledCue cue = CUE.compile(hostile);
            CueException e = assertThrows(CueException.class, // a deadline far beyond the bound's reach
                    () -> CUE.evaluate(cue, List.of(), "x", deadline(120), CueEvaluator.HttpTasks.REFUSED));
            assertTrue(e.getMessage().startsWith("the CUE worker exited (code 2)"), e.getMessage());
            assertTrue(e.getMessage().endsWith("during the evaluation"), e.getMessage());
            assertGoodEvaluates();
        }
    }

    @Test
    void aLargeOutputIsRefused() {
        try (CueWorkers small = new CueWorkers(new CueLimits(1, 0, 256L << 20, 1024, Duration.ofSeconds(10),
                Duration.ofSeconds(30)))) {
            CompiledCue huge = small.compile("import \"strings\"\nx: strings.Repeat(\"a\", 2000)\n");
            CueException e = assertThrows(CueException.class,
                    () -> small.evaluate(huge, List.of(), "x", deadline(10), CueEvaluator.HttpTasks.REFUSED));
            assertEquals("the output (2002 bytes) exceeds the bound of 1024 bytes", e.getMessage());
        } catch (CueException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void concurrentEvaluationsComplete() throws Exception {
        CompiledCue cue = CUE.compile(GOOD);
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
        try (CueWorkers one = new CueWorkers(new CueLimits(1, 0, 256L << 20, 4096, Duration.ofSeconds(10),
                Duration.ofSeconds(30)))) {
            CompiledCue waiting = one.compile("processing: http: {url: \"http://a/\"}\nx: processing.output.y\n");
            CompiledCue other = one.compile(GOOD);
            var holder = HeldWorker.start(one, waiting);
            CueException busy = assertThrows(CueException.class, () -> one.evaluate(other, List.of(object("a")),
                    "name", deadline(30), CueEvaluator.HttpTasks.REFUSED));
            assertEquals("all 1 CUE workers are busy and 0 evaluations wait for them", busy.getMessage());
            assertEquals(Json.createValue(1), holder.release());
        }
    }

    /**
     * A burst of requests for one (hostile) policy holds at most all workers but one: its second evaluation waits for
     * the policy's own worker, and fails at its deadline, while another policy is evaluated on the free worker.
     */
    @Test
    void onePolicyHoldsAtMostAllWorkersButOne() throws Exception {
        try (CueWorkers two = new CueWorkers(new CueLimits(2, 0, 256L << 20, 4096, Duration.ofSeconds(10),
                Duration.ofSeconds(30)))) {
            CompiledCue hostile = two.compile("processing: http: {url: \"http://a/\"}\nx: processing.output.y\n");
            var holder = HeldWorker.start(two, hostile);
            CueException waited = assertThrows(CueException.class, () -> two.evaluate(hostile, List.of(), "x",
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300),
                    request -> Json.createObjectBuilder().add("y", 2).build()));
            assertEquals("this policy's evaluations already hold 1 of the 2 CUE workers, the most one policy may",
                    waited.getMessage());
            assertEquals(Json.createValue("web"), two.evaluate(two.compile(GOOD), List.of(object("web")), "name",
                    deadline(10), CueEvaluator.HttpTasks.REFUSED));
            assertEquals(Json.createValue(1), holder.release());
        }
    }

    @Test
    void nothingRunsBeforeTheFirstCompileAndCloseStopsTheWorkers() throws Exception {
        CueWorkers lazy = new CueWorkers(CueLimits.DEFAULT);
        assertFalse(lazy.running());
        CompiledCue cue = lazy.compile(GOOD);
        assertTrue(lazy.running());
        lazy.evaluate(cue, List.of(object("a")), "name", deadline(10), CueEvaluator.HttpTasks.REFUSED);
        List<ProcessHandle> workers = lazy.workers();
        assertEquals(1, workers.size());
        lazy.close();
        for (ProcessHandle worker : workers) {
            worker.onExit().get(10, TimeUnit.SECONDS);
        }
        assertThrows(CueException.class, () -> lazy.compile(GOOD));
    }

    /** An evaluation of {@code processing.output.y} held in its worker until {@link #release}: its http task waits. */
    private record HeldWorker(Thread thread, CountDownLatch answer, AtomicReference<JsonValue> held) {
        static HeldWorker start(CueWorkers workers, CompiledCue cue) {
            CountDownLatch asked = new CountDownLatch(1);
            CountDownLatch answer = new CountDownLatch(1);
            AtomicReference<JsonValue> held = new AtomicReference<>();
            Thread thread = Thread.ofPlatform().start(() -> {
                try {
                    held.set(workers.evaluate(cue, List.of(), "x", deadline(30), request -> {
                        asked.countDown();
                        await(answer);
                        return Json.createObjectBuilder().add("y", 1).build();
                    }));
                } catch (CueException e) {
                    held.set(Json.createValue(e.getMessage()));
                }
            });
            await(asked);
            return new HeldWorker(thread, answer, held);
        }

        /** Answers the http task and returns what the evaluation gave. */
        JsonValue release() throws InterruptedException {
            answer.countDown();
            thread.join();
            return held.get();
        }
    }

    private static void assertGoodEvaluates() throws CueException {
        assertEquals(Json.createValue("web"), CUE.evaluate(CUE.compile(GOOD), List.of(object("web")), "name",
                deadline(10), CueEvaluator.HttpTasks.REFUSED));
    }

    private static JsonValue evaluate(String source, String output) throws CueException {
        return CUE.evaluate(CUE.compile(source), List.of(), output, deadline(10), CueEvaluator.HttpTasks.REFUSED);
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

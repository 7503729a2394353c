package io.remold.server.http;

import io.remold.rules.impact.ImpactSink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * The shadow worker's CPU budget, on clocks the test moves and a queue it runs by hand: no thread, no sleep. An
 * evaluation here takes CPU time and no wall time; the wall clock moves only between requests.
 */
class ShadowCpuBudgetTest {
    private static final long MILLIS = 1_000_000;

    /** The test's clocks: a Shadow evaluation moves the CPU clocks (its thread's, its script calls'), a step the wall. */
    private static final class Clocks implements CpuBudget.Clocks {
        long cpu;
        long scriptCpu;
        long wall;

        @Override
        public long threadCpuNanos() {
            return cpu;
        }

        @Override
        public long wallNanos() {
            return wall;
        }
    }

    /** A request after {@code idleMillis} of wall time whose Shadow evaluation takes {@code cpuMillis}. */
    private record Step(long idleMillis, long cpuMillis, boolean evaluated) {
    }

    private static Step runs(long idleMillis, long cpuMillis) {
        return new Step(idleMillis, cpuMillis, true);
    }

    private static Step skipped(long idleMillis, long cpuMillis) {
        return new Step(idleMillis, cpuMillis, false);
    }

    private final Clocks clocks = new Clocks();
    private final Metrics metrics = new Metrics();
    /** The worker's queue, run by the test. */
    private final Queue<Runnable> queued = new ArrayDeque<>();

    private ShadowWorker worker(double share, long maxQueuedBytes, Executor executor) {
        return new ShadowWorker(executor, maxQueuedBytes, new CpuBudget(share, clocks), ImpactSink.NONE, metrics);
    }

    /** An evaluation that takes {@code cpuMillis} of CPU time on its thread and says it ran. */
    private ShadowWorker.Evaluation evaluation(long cpuMillis, List<Integer> ran, int id) {
        return evaluation(() -> {
            clocks.cpu += cpuMillis * MILLIS;
            ran.add(id);
        });
    }

    private ShadowWorker.Evaluation evaluation(Runnable run) {
        return new ShadowWorker.Evaluation(run, () -> clocks.scriptCpu);
    }

    private void runQueued() {
        while (!queued.isEmpty()) {
            queued.remove().run();
        }
    }

    private void assertDropped(long queue, long cpu) {
        String scrape = metrics.scrape();
        assertThat(scrape, containsString("\nremold_shadow_dropped_total{reason=\"queue\"} " + queue + "\n"));
        assertThat(scrape, containsString("\nremold_shadow_dropped_total{reason=\"cpu\"} " + cpu + "\n"));
    }

    static Stream<Arguments> budgets() {
        return Stream.of(
                Arguments.of("within the budget (a quarter of a core: 250 ms of CPU) every evaluation runs", 0.25,
                        List.of(runs(0, 50), runs(0, 50), runs(0, 50), runs(0, 50), runs(0, 50))),
                Arguments.of("the evaluation that overdraws the budget runs; past it they are skipped", 0.25,
                        List.of(runs(0, 100), runs(0, 100), runs(0, 100), skipped(0, 1), skipped(0, 100))),
                Arguments.of("the budget refills at the share: a 50 ms debt is paid back after 200 ms", 0.25,
                        List.of(runs(0, 300), skipped(199, 10), runs(1, 10), skipped(0, 10), runs(40, 10))),
                Arguments.of("an hour idle refills a second's share, no more", 0.25,
                        List.of(runs(3_600_000, 100), runs(0, 100), runs(0, 100), skipped(0, 100),
                                skipped(199, 1), runs(1, 1))),
                Arguments.of("a steady rate within the share runs every evaluation", 0.25,
                        List.of(runs(0, 250), runs(100, 25), runs(100, 25), runs(100, 25), runs(100, 25))),
                Arguments.of("a steady rate past the share runs a sample of them", 0.25,
                        List.of(runs(0, 250), runs(100, 50), runs(100, 50), skipped(100, 50), runs(100, 50),
                                skipped(100, 50), runs(100, 50))),
                Arguments.of("a whole core: a second of CPU, then at the rate of the wall clock", 1.0,
                        List.of(runs(0, 900), runs(0, 200), skipped(99, 1), runs(1, 1))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("budgets")
    void evaluationsRunWhileTheBudgetLastsAndAreSkippedAndCountedPastIt(String name, double share,
                                                                         List<Step> steps) {
        var worker = worker(share, 1 << 20, queued::add);
        var ran = new ArrayList<Integer>();
        var expected = new ArrayList<Integer>();
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            clocks.wall += step.idleMillis() * MILLIS;
            worker.submit(10, null, evaluation(step.cpuMillis(), ran, i));
            runQueued();
            if (step.evaluated()) {
                expected.add(i);
            }
        }
        assertThat(ran, equalTo(expected));
        assertDropped(0, steps.size() - expected.size());
    }

    /** A request queued while the budget lasted is skipped when its turn comes after the budget was spent. */
    @Test
    void theBudgetIsReadAgainWhenAQueuedEvaluationsTurnComes() {
        var worker = worker(0.25, 1 << 20, queued::add);
        var ran = new ArrayList<Integer>();
        for (int i = 0; i < 3; i++) {
            worker.submit(10, null, evaluation(200, ran, i));
        }
        assertThat(queued.size(), is(3));
        runQueued();
        assertThat(ran, equalTo(List.of(0, 1)));
        assertDropped(0, 1);
        // spent: the next request is skipped before it is queued
        worker.submit(10, null, evaluation(1, ran, 3));
        assertThat(queued.size(), is(0));
        assertDropped(0, 2);
    }

    /** Warn verdicts come from the enforcing engine's decision: the budget does not hold them back. */
    @Test
    void warnVerdictsAreRecordedWhileTheBudgetIsSpent() {
        var worker = worker(0.25, 1 << 20, queued::add);
        var ran = new ArrayList<Integer>();
        worker.submit(10, null, evaluation(300, ran, 0));
        runQueued();
        worker.submit(10, () -> ran.add(-1), evaluation(1, ran, 1));
        runQueued();
        assertThat(ran, equalTo(List.of(0, -1)));
        assertDropped(0, 1);
    }

    /** A failing evaluation's CPU time counts as much. */
    @Test
    void anEvaluationThatFailsIsChargedToo() {
        var worker = worker(0.25, 1 << 20, queued::add);
        var ran = new ArrayList<Integer>();
        worker.submit(10, null, evaluation(() -> {
            clocks.cpu += 300 * MILLIS;
            throw new IllegalStateException("a Shadow rule failed");
        }));
        runQueued();
        worker.submit(10, null, evaluation(1, ran, 1));
        assertThat(ran, equalTo(List.of()));
        assertDropped(0, 1);
    }

    /** A Shadow script rule's calls run on the script host's threads while the worker's waits: charged as well. */
    @Test
    void theCpuTimeOfTheEvaluationsScriptCallsIsChargedToo() {
        var worker = worker(0.25, 1 << 20, queued::add);
        var ran = new ArrayList<Integer>();
        clocks.scriptCpu = 5_000 * MILLIS; // calls before this evaluation: not its own
        worker.submit(10, null, evaluation(() -> {
            clocks.cpu += MILLIS;
            clocks.scriptCpu += 249 * MILLIS;
            ran.add(0);
        }));
        runQueued();
        worker.submit(10, null, evaluation(() -> {
            clocks.cpu += MILLIS;
            clocks.scriptCpu += 100 * MILLIS;
            ran.add(1);
        }));
        runQueued();
        worker.submit(10, null, evaluation(1, ran, 2));
        assertThat(ran, equalTo(List.of(0, 1)));
        assertDropped(0, 1);
    }

    /** Full in bytes (the queued bodies' bound) or in requests (the executor refuses): reason queue. */
    @Test
    void aFullQueueStillCountsReasonQueue() {
        var worker = worker(0.25, 100, task -> {
            if (queued.size() == 2) {
                throw new RejectedExecutionException("full");
            }
            queued.add(task);
        });
        var ran = new ArrayList<Integer>();
        worker.submit(60, null, evaluation(1, ran, 0));
        worker.submit(41, null, evaluation(1, ran, 1)); // 101 bytes with the first
        assertDropped(1, 0);
        worker.submit(40, () -> ran.add(-2), null);
        worker.submit(0, null, evaluation(1, ran, 3)); // two requests queued already
        assertDropped(2, 0);
        runQueued();
        assertThat(ran, equalTo(List.of(0, -2)));
        // their bytes are released: the queue takes a request of 100 bytes again
        worker.submit(100, null, evaluation(1, ran, 4));
        runQueued();
        assertThat(ran, equalTo(List.of(0, -2, 4)));
        assertDropped(2, 0);
    }
}

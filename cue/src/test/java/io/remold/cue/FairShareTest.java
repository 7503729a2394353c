package io.remold.cue;

import io.remold.cue.CueEvaluator.Owner;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static io.remold.cue.CueEvaluator.Owner.ADMINISTRATOR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Who gets a freed worker, and who may take a free one, with plain names for workers and a thread per call. */
class FairShareTest {
    private static final Owner A = new Owner.Tenant("a");
    private static final Owner B = new Owner.Tenant("b");
    private static final Owner C = new Owner.Tenant("c");

    @Test
    void freedWorkersGoRoundRobinByTenantAndFirstComeFirstServedWithinOne() throws Exception {
        Calls calls = new Calls(2);
        calls.start("a1", A, 1);
        calls.start("a2", A, 1);
        calls.start("a3", A, 2);
        calls.start("b1", B, 3);
        calls.start("c1", C, 4);
        calls.assertGranted("a1");
        calls.release("a1");
        calls.assertGranted("b1");
        calls.release("b1");
        calls.assertGranted("c1");
        calls.release("c1");
        calls.assertGranted("a2");
        calls.release("a2");
        calls.assertGranted("a3");
    }

    @Test
    void oneWorkerIsKeptForTheAdministratorWhoseCallsGoFirst() throws Exception {
        Calls calls = new Calls(2);
        calls.start("a1", A, 1);
        calls.start("b1", B, 2); // waits though a worker is free: it is the administrator's
        calls.start("admin1", ADMINISTRATOR, 3);
        calls.start("admin2", ADMINISTRATOR, 4);
        calls.assertGranted("a1", "admin1");
        calls.release("a1");
        calls.assertGranted("admin2");
        calls.release("admin1");
        calls.assertGranted("b1");
    }

    @Test
    void onePolicyHoldsAllWorkersButOneAndDoesNotHoldUpTheOwnersOtherPolicies() throws Exception {
        Calls calls = new Calls(3);
        calls.start("p1", ADMINISTRATOR, 1);
        calls.start("p2", ADMINISTRATOR, 1);
        calls.start("p3", ADMINISTRATOR, 1);
        calls.start("q1", ADMINISTRATOR, 2);
        calls.assertGranted("p1", "p2", "q1");
        calls.release("q1");
        calls.start("q2", ADMINISTRATOR, 2);
        calls.assertGranted("q2");
        calls.release("p1");
        calls.assertGranted("p3");
    }

    @Test
    void withOneWorkerTheAdministratorGoesFirst() throws Exception {
        Calls calls = new Calls(1);
        calls.start("a1", A, 1);
        calls.start("b1", B, 2);
        calls.start("admin", ADMINISTRATOR, 3);
        calls.assertGranted("a1");
        calls.release("a1");
        calls.assertGranted("admin");
        calls.release("admin");
        calls.assertGranted("b1");
    }

    @Test
    void aCallGivesUpAtItsDeadlineSayingWhy() throws Exception {
        FairShare<String> share = new FairShare<>(List.of("w"), limits(4, 4));
        String held = share.acquire(ADMINISTRATOR, 1, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        CueException e = assertThrows(CueException.class, () -> share.acquire(A, 2, System.nanoTime()));
        assertEquals("no CUE worker before the deadline: all 1 CUE workers are busy", e.getMessage());
        assertEquals(0, share.waiting());
        share.release(ADMINISTRATOR, 1, held);
        assertEquals("w", share.acquire(A, 2, System.nanoTime()));
    }

    private static CueLimits limits(int queue, int queuePerTenant) {
        return new CueLimits(1, queue, queuePerTenant, 256L << 20, 4096, Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    /** Calls on threads of their own, each named; what each was given and in what order. */
    private static final class Calls {
        private final FairShare<String> share;
        private final BlockingQueue<String> granted = new LinkedBlockingQueue<>();
        private final Map<String, Held> held = new ConcurrentHashMap<>();

        Calls(int workers) {
            List<String> names = IntStream.rangeClosed(1, workers).mapToObj(i -> "w" + i).toList();
            share = new FairShare<>(names, new CueLimits(workers, 16, 8, 256L << 20, 4096, Duration.ofSeconds(1),
                    Duration.ofSeconds(1)));
        }

        /** Starts a call of {@code policy} for {@code owner}; returns once it holds a worker or waits for one. */
        void start(String name, Owner owner, long policy) {
            int waiting = share.waiting();
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    held.put(name, new Held(owner, policy,
                            share.acquire(owner, policy, System.nanoTime() + TimeUnit.SECONDS.toNanos(30))));
                    granted.add(name);
                } catch (CueException | InterruptedException e) {
                    granted.add(name + ": " + e.getMessage());
                }
            });
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!held.containsKey(name) && share.waiting() == waiting) {
                assertTrue(System.nanoTime() - end < 0, name + " neither holds a worker nor waits");
                Thread.yield();
            }
        }

        /** The calls given a worker next, in this order. */
        void assertGranted(String... names) throws InterruptedException {
            for (String name : names) {
                String next = granted.poll(30, TimeUnit.SECONDS);
                assertNotNull(next, name + " was given no worker");
                assertEquals(name, next);
            }
        }

        void release(String name) {
            Held call = held.remove(name);
            share.release(call.owner(), call.policy(), call.worker());
        }
    }

    private record Held(Owner owner, long policy, String worker) {
    }
}

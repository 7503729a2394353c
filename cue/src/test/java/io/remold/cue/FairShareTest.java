package io.remold.cue;

import io.remold.cue.CueEvaluator.Owner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.remold.cue.CueEvaluator.Owner.ADMINISTRATOR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Who gets a freed worker, and who may take a free one, with plain names for workers and a thread per call. */
class FairShareTest {
    /**
     * Steps, in order: {@code +name owner policy} starts a call (owner {@code admin} or a tenant's namespace) and
     * returns once it holds a worker or waits; {@code =name} says it is the next given a worker; {@code -name} gives
     * its worker back.
     */
    static Stream<Arguments> turns() {
        return Stream.of(
                Arguments.of("round-robin by tenant, first come first served within one", 2,
                        "+a1 a 1, +a2 a 1, +a3 a 2, +b1 b 3, +c1 c 4,"
                                + " =a1, -a1, =b1, -b1, =c1, -c1, =a2, -a2, =a3"),
                Arguments.of("one worker kept for the administrator, whose calls go first", 2,
                        "+a1 a 1, +b1 b 2, +admin1 admin 3, +admin2 admin 4,"
                                + " =a1, =admin1, -a1, =admin2, -admin1, =b1"),
                Arguments.of("one policy holds all workers but one, and does not hold up its owner's others", 3,
                        "+p1 admin 1, +p2 admin 1, +p3 admin 1, +q1 admin 2, =p1, =p2, =q1,"
                                + " -q1, +q2 admin 2, =q2, -p1, =p3"),
                Arguments.of("with one worker, the administrator first", 1,
                        "+a1 a 1, +b1 b 2, +admin admin 3, =a1, -a1, =admin, -admin, =b1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("turns")
    void freedWorkersGoToWhoseTurnItIs(String name, int workers, String steps) throws Exception {
        Calls calls = new Calls(workers);
        for (String step : steps.split(",\\s*")) {
            String[] words = step.substring(1).split(" ");
            String call = words[0];
            switch (step.charAt(0)) {
                case '+' -> calls.start(call, words[1].equals("admin") ? ADMINISTRATOR : new Owner.Tenant(words[1]),
                        Long.parseLong(words[2]));
                case '=' -> calls.assertGranted(call);
                case '-' -> calls.release(call);
                default -> throw new IllegalArgumentException(step);
            }
        }
    }

    @Test
    void aCallGivesUpAtItsDeadlineSayingWhy() throws Exception {
        FairShare<String> share = new FairShare<>(List.of("w"), limits(4, 4));
        String held = share.acquire(ADMINISTRATOR, 1, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
        Owner tenant = new Owner.Tenant("a");
        CueException e = assertThrows(CueException.class, () -> share.acquire(tenant, 2, System.nanoTime()));
        assertEquals("no CUE worker before the deadline: all 1 CUE workers are busy", e.getMessage());
        assertEquals(0, share.waiting());
        share.release(ADMINISTRATOR, 1, held);
        assertEquals("w", share.acquire(tenant, 2, System.nanoTime()));
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

        /** The call given a worker next. */
        void assertGranted(String name) throws InterruptedException {
            String next = granted.poll(30, TimeUnit.SECONDS);
            assertNotNull(next, name + " was given no worker");
            assertEquals(name, next);
        }

        void release(String name) {
            Held call = held.remove(name);
            share.release(call.owner(), call.policy(), call.worker());
        }
    }

    private record Held(Owner owner, long policy, String worker) {
    }
}

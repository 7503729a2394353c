package io.remold.server.existing;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

/** The budget on a clock the test moves: the waits it asks for, never a real one. */
class WriteBudgetTest {
    private static final long MS = 1_000_000;
    private final AtomicLong now = new AtomicLong();
    private final List<Long> waits = new ArrayList<>();
    /** Ten a second, a write waits at most a second; waits are recorded, the clock moves only when the test says. */
    private final WriteBudget budget = new WriteBudget(10, Duration.ofSeconds(1), now::get, waits::add);

    @Test
    void writesAskedTogetherTakeTheNextSlotsUpToTheBoundThenAreRefused() {
        var granted = new ArrayList<Boolean>();
        for (int i = 0; i < 12; i++) {
            granted.add(budget.acquire());
        }

        assertThat(granted, is(List.of(true, true, true, true, true, true, true, true, true, true, true, false)));
        assertThat(waits, contains(100 * MS, 200 * MS, 300 * MS, 400 * MS, 500 * MS, 600 * MS, 700 * MS, 800 * MS,
                900 * MS, 1000 * MS));
    }

    @Test
    void aRefusedWriteTakesNoSlotAndTimeFreesThem() {
        for (int i = 0; i < 11; i++) {
            budget.acquire();
        }
        assertThat(budget.acquire(), is(false));
        waits.clear();

        now.set(1100 * MS);
        assertThat(budget.acquire(), is(true));
        assertThat("the slot of the refused one was not taken", waits, empty());
    }

    @Test
    void anIdleBudgetSavesNoBurst() {
        now.set(60_000 * MS);
        budget.acquire();
        budget.acquire();

        assertThat(waits, contains(100 * MS));
    }
}

package io.remold.server.http;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Reading bodies: whole, refused when short or too long, and counted against the in-flight budget. */
class RequestBodiesTest {
    static final int MAX = 200_000;
    final RequestBodies bodies = new RequestBodies(new HttpLimits(MAX, 2 * MAX, Duration.ofSeconds(10)));
    final BodyBudget budget = new BodyBudget(2 * MAX);

    @AfterEach
    void close() {
        bodies.close();
    }

    @Test
    void aBodyOfTheAnnouncedLengthIsReadWholeAndReservedOnce() throws IOException {
        byte[] body = "{\"a\":1}".getBytes(StandardCharsets.US_ASCII);
        try (var lease = budget.lease()) {
            assertThat(bodies.read(new ByteArrayInputStream(body), OptionalLong.of(body.length), lease), is(body));
            assertThat(budget.available(), is(2L * MAX)); // the caller reserves an announced length before reading
        }
    }

    @Test
    void aBodyShorterThanItsContentLengthIsRefusedSayingHowMuchArrived() {
        var e = assertThrows(HttpProblem.class, () -> bodies.read(
                new ByteArrayInputStream("{\"a\":1}".getBytes(StandardCharsets.US_ASCII)), OptionalLong.of(100),
                budget.lease()));
        assertThat(e.code, is(400));
        assertThat(e.getMessage(), is("body ended after 7 of the 100 bytes in Content-Length"));
    }

    @Test
    void aChunkedBodyGrowsAsItArrivesAndReservesWhatItHolds() throws IOException {
        byte[] body = new byte[150_000];
        Arrays.fill(body, (byte) ' ');
        try (var lease = budget.lease()) {
            assertThat(bodies.read(new ByteArrayInputStream(body), OptionalLong.empty(), lease), is(body));
            // 64 KiB, doubled to 128 KiB, then up to max-body-bytes + 1 (the byte that tells a body too long)
            assertThat(budget.available(), is(2L * MAX - (MAX + 1)));
        }
        assertThat(budget.available(), is(2L * MAX));
    }

    @Test
    void aChunkedBodyBeyondTheLimitIs413() {
        var e = assertThrows(HttpProblem.class, () -> bodies.read(new ByteArrayInputStream(new byte[MAX + 10]),
                OptionalLong.empty(), budget.lease()));
        assertThat(e.code, is(413));
    }

    @Test
    void beyondTheBudgetARequestIs503AndItsShareComesBackWhenClosed() {
        var first = budget.lease();
        first.reserve(MAX + MAX / 2);
        var e = assertThrows(HttpProblem.class, () -> budget.lease().reserve(MAX));
        assertThat(e.code, is(503));
        assertThat(e.getMessage(), is("too many request bodies in flight (more than 400000 bytes, "
                + "max-body-bytes-in-flight): try again"));
        first.close();
        try (var second = budget.lease()) {
            second.reserve(MAX);
        }
        assertThat(budget.available(), is(2L * MAX));
    }

    @Test
    void readDeadlineInterruptsTheReaderAndClearsTheInterruptWhenClosed() throws InterruptedException {
        try (var deadlines = new ReadDeadlines(Duration.ofMillis(1))) {
            var deadline = deadlines.start();
            // Waits for the interrupt: it comes at the deadline, not before.
            assertThrows(InterruptedException.class, () -> Thread.sleep(Duration.ofMinutes(1)));
            assertThat(deadline.expired(), is(true));
            deadline.close();
            assertThat(Thread.currentThread().isInterrupted(), is(false));
        }
    }

    @Test
    void aDeadlineExpiresWhenASweepFindsItsTimePassedNotBefore() {
        var clock = new AtomicLong(1_000);
        try (var deadlines = new ReadDeadlines(Duration.ofSeconds(5), clock::get)) {
            var deadline = deadlines.start();
            clock.set(1_000 + Duration.ofSeconds(5).toNanos() - 1);
            deadlines.sweep(clock.get());
            assertThat(deadline.expired(), is(false));
            assertThat(Thread.currentThread().isInterrupted(), is(false));

            clock.incrementAndGet();
            deadlines.sweep(clock.get());
            assertThat(deadline.expired(), is(true));
            deadline.close();
            assertThat(Thread.currentThread().isInterrupted(), is(false));
        }
    }

    @Test
    void anEndedDeadlineNeverInterruptsItsReader() {
        var clock = new AtomicLong();
        try (var deadlines = new ReadDeadlines(Duration.ofSeconds(5), clock::get)) {
            deadlines.start().close();
            clock.set(Duration.ofMinutes(1).toNanos());
            deadlines.sweep(clock.get());
            assertThat(Thread.currentThread().isInterrupted(), is(false));
        }
    }

    @Test
    void deadlinesAreSweptAtATenthOfTheTimeoutAndAtMost100MsLate() {
        assertThat(ReadDeadlines.tick(Duration.ofSeconds(5)), is(Duration.ofMillis(100)));
        assertThat(ReadDeadlines.tick(Duration.ofMillis(200)), is(Duration.ofMillis(20)));
        assertThat(ReadDeadlines.tick(Duration.ofNanos(5)), is(Duration.ofNanos(1)));
    }
}

package io.remold.server.external;

import io.remold.api.Provider;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The HTTP exchanges with one service (a Provider, an allowed prefix of kinitiras http references): at most
 * {@link #MAX_CALLS_IN_FLIGHT} under way, each ended at its timeout (the response headers and the body), the body
 * read into memory up to {@link #MAX_BODY_BYTES}. Redirects are not followed.
 */
final class Exchanges {
    /** Largest answer read; one byte more fails the call and closes its connection. */
    static final int MAX_BODY_BYTES = 1 << 20;
    /**
     * Most calls under way at once per service: each holds a connection and up to 1 MiB of answer, and a service
     * that slows down under load is not sent more. A call that gets no turn before its caller's deadline fails.
     */
    static final int MAX_CALLS_IN_FLIGHT = 8;

    private final HttpClient client;
    private final ScheduledExecutorService timeouts;
    private final Semaphore inFlight = new Semaphore(MAX_CALLS_IN_FLIGHT);

    /** Over {@code client} ({@link #client}); {@code timeouts} cancels exchanges at their timeout. */
    Exchanges(HttpClient client, ScheduledExecutorService timeouts) {
        this.client = client;
        this.timeouts = timeouts;
    }

    /** Stops the client: exchanges under way fail. */
    void close() {
        client.shutdownNow();
    }

    /** A client as every service's: HTTP/1.1, no redirects, {@code ssl}'s trust, calls on {@code executor}. */
    static HttpClient client(SSLContext ssl, Duration connectTimeout, Executor executor) {
        return HttpClient.newBuilder().sslContext(ssl).version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(connectTimeout).executor(executor).build();
    }

    /**
     * Sends the request once a call is free (before {@code deadline}, {@link System#nanoTime}; empty when none was),
     * cancelled after {@code timeout}. The turn is given back when the exchange completes, before what the caller
     * chains on the returned future runs. Building the request may throw: the exchange then fails.
     */
    Optional<CompletableFuture<HttpResponse<byte[]>>> send(Supplier<HttpRequest> request, Duration timeout,
                                                           long deadline) {
        boolean turn;
        try {
            turn = inFlight.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            turn = false;
        }
        if (!turn) {
            return Optional.empty();
        }
        try {
            CompletableFuture<HttpResponse<byte[]>> sent;
            try {
                sent = client.sendAsync(request.get(), CappedBody.handler(MAX_BODY_BYTES));
            } catch (RuntimeException e) { // e.g. the client was shut down meanwhile, a header it refuses
                sent = CompletableFuture.failedFuture(e);
            }
            // The request's own timeout ends at the response headers; this bounds the body too (cancel aborts it).
            CompletableFuture<HttpResponse<byte[]>> exchange = sent;
            ScheduledFuture<?> timer;
            try {
                timer = timeouts.schedule(() -> exchange.cancel(true), timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) { // shut down: the server is closing
                exchange.cancel(true);
                timer = null;
            }
            ScheduledFuture<?> scheduled = timer;
            return Optional.of(exchange.whenComplete((response, error) -> {
                if (scheduled != null) {
                    scheduled.cancel(false); // done: the scheduler lets go of it now, not at the timeout
                }
                inFlight.release();
            }));
        } catch (Throwable e) { // e.g. out of memory before the exchange took the turn over: give it back
            inFlight.release();
            throw e;
        }
    }

    /** A failed exchange in words: {@code source} names the service, {@code timeout} the call's. */
    static String describe(Throwable error, String source, Duration timeout) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLException tls) {
                return "TLS with " + source + " failed: " + message(tls);
            }
        }
        return switch (e) {
            case CancellationException c -> "no answer within " + Provider.format(timeout);
            case HttpTimeoutException t -> "no answer within " + Provider.format(timeout);
            case ConnectException c -> "cannot connect to " + source + ": " + message(c);
            case IOException io -> "call to " + source + " failed: " + message(io);
            default -> "call to " + source + " failed: " + e;
        };
    }

    private static String message(Throwable e) {
        Throwable root = e;
        while (root.getMessage() == null && root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }
}

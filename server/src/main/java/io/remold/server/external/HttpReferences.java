package io.remold.server.external;

import io.remold.api.Provider;
import io.remold.api.AllowedUrls;
import io.remold.kinitiras.HttpAnswers;
import io.remold.kinitiras.HttpCall;
import io.remold.kinitiras.PolicyEvaluationException;
import jakarta.json.JsonException;
import jakarta.json.JsonValue;

import javax.net.ssl.SSLContext;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * kinitiras {@code http} references answered over HTTP(S), for the URL prefixes an administrator allows
 * ({@code --allow-http-ref}): each prefix is a service with the Providers' client ({@link Exchanges}: no redirects,
 * at most {@link Exchanges#MAX_CALLS_IN_FLIGHT} calls under way, answers up to {@link Exchanges#MAX_BODY_BYTES}) and
 * its own {@link Breaker}. A call waits at most {@link #TIMEOUT} (kinitiras's client's), and never past the request's
 * budget. Nothing is cached: kinitiras calls on every request, and a reference's answer may depend on the object.
 * The server's default trust applies to https.
 */
final class HttpReferences implements HttpAnswers {
    /** The longest a call may take, kinitiras's own client's timeout. */
    static final Duration TIMEOUT = Duration.ofSeconds(1);

    /** One allowed prefix's calls; the breaker is guarded by the lock. */
    private record Service(Exchanges exchanges, Breaker breaker, ReentrantLock lock) {
    }

    private final AllowedUrls allowed;
    private final Duration timeout;
    private final Map<String, Service> services;
    private final LongSupplier clock;

    /**
     * For the {@code allowed} prefixes, each call taking at most {@code timeout} ({@link #TIMEOUT}; tests on a loaded
     * machine give more), calling on {@code executor}, {@code timeouts} cancelling calls at their timeout, trusting
     * {@code ssl}; {@code clock} (nanoseconds) times the breakers.
     */
    HttpReferences(AllowedUrls allowed, Duration timeout, SSLContext ssl, Executor executor,
                   ScheduledExecutorService timeouts, LongSupplier clock) {
        this.allowed = allowed;
        this.timeout = timeout;
        this.clock = clock;
        var services = new HashMap<String, Service>();
        for (String prefix : allowed.prefixes()) {
            services.put(prefix, new Service(new Exchanges(Exchanges.client(ssl, timeout, executor), timeouts),
                    new Breaker(ProviderClient.MAX_FAILURE_TTL.toNanos(), "service"), new ReentrantLock()));
        }
        this.services = Map.copyOf(services);
    }

    /** The server's default trust: the JVM's. */
    static SSLContext defaultTrust() {
        try {
            return SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no TLS: " + e, e);
        }
    }

    /** Stops the clients: calls under way fail. */
    void close() {
        services.values().forEach(service -> service.exchanges().close());
    }

    @Override
    public AllowedUrls allowed() {
        return allowed;
    }

    @Override
    public JsonValue answer(HttpCall call, long deadlineNanos) throws PolicyEvaluationException {
        String url = call.url().toString();
        Service service = allowed.prefixOf(call.url()).map(services::get).orElse(null);
        if (service == null) { // the family checks first; kept so that no path calls an URL not allowed
            throw new PolicyEvaluationException(allowed.refusal(call.url()).orElse("http valueRef " + url
                    + ": not allowed"));
        }
        long start = System.nanoTime();
        if (deadlineNanos - start <= 0) {
            throw failure(url, "not called: the request budget is spent");
        }
        long end = deadlineNanos - (start + this.timeout.toNanos()) < 0 ? deadlineNanos
                : start + this.timeout.toNanos();
        Duration timeout = Duration.ofNanos(end - start);
        HttpRequest request;
        try {
            request = request(call, timeout);
        } catch (IllegalArgumentException e) { // a header the client may not set (Host, Connection...)
            throw failure(url, "cannot be sent: " + e.getMessage());
        }
        boolean probe;
        service.lock().lock();
        try {
            probe = service.breaker().isOpen();
            String refusal = service.breaker().refusal(clock.getAsLong());
            if (refusal != null) {
                throw failure(url, refusal);
            }
        } finally {
            service.lock().unlock();
        }
        Outcome outcome = call(service, request, timeout, end, call.url().getScheme() + "://"
                + call.url().getRawAuthority());
        service.lock().lock();
        try {
            if (outcome.sent()) {
                service.breaker().ended(outcome.serviceFailed(), probe, clock.getAsLong());
            } else if (probe) {
                service.breaker().probeDropped();
            }
        } finally {
            service.lock().unlock();
        }
        if (outcome.failure() != null) {
            throw failure(url, outcome.failure());
        }
        return outcome.body();
    }

    /**
     * How a call ended: whether it was sent, its answer or why it failed, and whether the failure is the service's
     * (a transport failure, a timeout, an answer too large, HTTP 5xx), which counts towards its breaker; a 4xx or an
     * answer that is not JSON is the reference's, which the caller chose.
     */
    private record Outcome(boolean sent, JsonValue body, String failure, boolean serviceFailed) {
        static Outcome failed(String why, boolean serviceFailed) {
            return new Outcome(true, null, why, serviceFailed);
        }
    }

    private static Outcome call(Service service, HttpRequest request, Duration timeout, long end, String source) {
        Optional<CompletableFuture<HttpResponse<byte[]>>> exchange = service.exchanges()
                .send(() -> request, timeout, end);
        if (exchange.isEmpty()) {
            return new Outcome(false, null, "service busy: " + Exchanges.MAX_CALLS_IN_FLIGHT + " calls under way",
                    false);
        }
        HttpResponse<byte[]> response;
        try {
            response = exchange.get().get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return Outcome.failed("no answer within " + Provider.format(timeout), true);
        } catch (ExecutionException e) {
            return Outcome.failed(Exchanges.describe(e.getCause(), source, timeout), true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.failed("interrupted while waiting for the service", false);
        }
        int status = response.statusCode();
        if (status / 100 != 2) {
            return Outcome.failed("the service answered HTTP " + status, status >= 500);
        }
        JsonValue body = json(response.body());
        return body == null ? Outcome.failed("the answer is not JSON", false) : new Outcome(true, body, null, false);
    }

    private static HttpRequest request(HttpCall call, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(call.url()).timeout(timeout)
                .method(call.method(), call.body().map(HttpRequest.BodyPublishers::ofString)
                        .orElseGet(HttpRequest.BodyPublishers::noBody));
        call.headers().forEach(request::header);
        return request.build();
    }

    private static JsonValue json(byte[] body) {
        try (var reader = ProviderProtocol.JSON.createReader(new ByteArrayInputStream(body))) {
            return reader.readValue();
        } catch (JsonException | NumberFormatException e) { // a number beyond BigDecimal's exponent: not JSON here
            return null;
        }
    }

    private static PolicyEvaluationException failure(String url, String why) {
        return new PolicyEvaluationException("http valueRef " + url + ": " + why);
    }
}

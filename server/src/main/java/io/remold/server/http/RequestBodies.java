package io.remold.server.http;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.ServerRequest;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Reads webhook request bodies within three bounds: {@code max-body-bytes} per body, {@code max-body-bytes-in-flight}
 * for all bodies at once ({@link BodyBudget}), and {@code read-timeout-ms} per body ({@link ReadDeadlines}). Memory
 * follows the bytes that arrived, not the length announced: a buffer is pre-sized up to {@link #PRESIZE} only.
 */
final class RequestBodies implements AutoCloseable {
    /** The largest buffer allocated before its bytes arrive; most reviews are smaller (one allocation, no copy). */
    static final int PRESIZE = 64 * 1024;

    private final long maxBodyBytes;
    private final BodyBudget budget;
    private final ReadDeadlines deadlines;

    RequestBodies(HttpLimits limits) {
        this.maxBodyBytes = limits.maxBodyBytes();
        this.budget = new BodyBudget(limits.maxBodyBytesInFlight());
        this.deadlines = new ReadDeadlines(limits.readTimeout());
    }

    BodyBudget.Lease lease() {
        return budget.lease();
    }

    /** Bytes of max-body-bytes-in-flight that no request being read holds. */
    long bytesAvailable() {
        return budget.available();
    }

    /** Where requests' read deadlines start and end. */
    ReadDeadlines deadlines() {
        return deadlines;
    }

    /**
     * The JSON body of {@code req}, its bytes reserved in {@code lease}: 415 for another content type, 413 beyond
     * max-body-bytes, 503 when the budget is spent, 400 for a body shorter than its Content-Length. When the body
     * does not arrive in time the connection is closed (a {@link BodyNotReceived}).
     */
    byte[] read(ServerRequest req, BodyBudget.Lease lease) {
        String contentType = req.headers().first(HeaderNames.CONTENT_TYPE).orElse("");
        if (!contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw new HttpProblem(415, "Content-Type must be application/json, got \"" + contentType + "\"");
        }
        OptionalLong length = req.headers().contentLength();
        if (length.isPresent() && length.getAsLong() > maxBodyBytes) {
            throw new HttpProblem(413, "body of " + length.getAsLong() + " bytes exceeds the limit of "
                    + maxBodyBytes);
        }
        length.ifPresent(lease::reserve);
        try (var deadline = deadlines.request(); InputStream in = req.content().inputStream()) {
            try {
                return read(in, length, lease);
            } catch (IOException | RuntimeException e) {
                if (deadline.expired()) {
                    throw new BodyNotReceived(deadlines.timeout());
                }
                throw e;
            }
        } catch (IOException e) {
            throw new BodyNotReceived(e);
        }
    }

    byte[] read(InputStream in, OptionalLong length, BodyBudget.Lease lease) throws IOException {
        int limit = length.isPresent() ? (int) length.getAsLong() : (int) maxBodyBytes + 1;
        byte[] body = new byte[Math.min(limit, PRESIZE)];
        if (length.isEmpty()) {
            lease.reserve(body.length);
        }
        int read = 0;
        while (read < limit) {
            if (read == body.length) {
                int grown = (int) Math.min(limit, 2L * body.length);
                if (length.isEmpty()) {
                    lease.reserve(grown - body.length);
                }
                body = Arrays.copyOf(body, grown);
            }
            int n = in.read(body, read, body.length - read);
            if (n < 0) {
                break;
            }
            read += n;
        }
        if (length.isPresent() && read < limit) {
            // Helidon closes an HTTP/1.1 connection that ends early itself; this keeps a short body from the parser.
            throw new HttpProblem(400, "body ended after " + read + " of the " + limit + " bytes in Content-Length");
        }
        if (read > maxBodyBytes) {
            throw new HttpProblem(413, "body exceeds the limit of " + maxBodyBytes + " bytes");
        }
        return read == body.length ? body : Arrays.copyOf(body, read);
    }

    @Override
    public void close() {
        deadlines.close();
    }

    /** The body did not arrive (in time, or at all): nothing can be answered on this connection. */
    static final class BodyNotReceived extends CloseConnectionException {
        BodyNotReceived(Duration timeout) {
            super("request body not received within " + timeout.toMillis() + " ms (read-timeout-ms)");
        }

        BodyNotReceived(IOException cause) {
            super("reading the request body failed: " + cause.getMessage(), cause);
        }
    }
}

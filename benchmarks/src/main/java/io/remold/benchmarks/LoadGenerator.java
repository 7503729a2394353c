package io.remold.benchmarks;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * A small HTTPS load generator for admission webhooks: keep-alive HTTP/1.1 connections, each a virtual thread that
 * POSTs the same body and reads the whole response.
 *
 * <p>Without {@code --rate} it runs closed-loop (every connection sends back to back: saturation). With {@code --rate}
 * it runs open-loop: request k is due at {@code start + k/rate}, and its latency is measured from that due time, so a
 * stalled server is charged for the requests it delayed (no coordinated omission).
 *
 * <p>Every connection is opened, with its TLS handshake, before the clock starts, and the warm-up's connections carry
 * the measured run: sixteen handshakes at once stall the first ~150 ms of requests, which at 2,500/s is 1% of a 15 s
 * run and would be all of the p99.
 *
 * <pre>
 * LoadGenerator --url https://127.0.0.1:8443/mutate --body review.json [--rate 2000] [--duration 20]
 *               [--warmup 5] [--connections 16] [--ca ca.pem | --insecure]
 * </pre>
 * Prints one line of key=value pairs: requests, errors, throughput and latency percentiles in microseconds.
 */
public final class LoadGenerator {
    private record Options(URI url, byte[] body, double rate, Duration duration, Duration warmup, int connections,
                           Path ca, boolean insecure) {
    }

    private LoadGenerator() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: LoadGenerator --url URL --body FILE [--rate N] [--duration S] [--warmup S] "
                + "[--connections N] [--ca FILE | --insecure]");
            System.exit(2);
            return;
        }
        SSLContext tls = tls(options.ca(), options.insecure());
        Connection[] connections = new Connection[options.connections()];
        for (int c = 0; c < connections.length; c++) {
            connections[c] = new Connection(tls, options.url());
        }
        if (!options.warmup().isZero()) {
            run(options, tls, connections, options.warmup());
        }
        Result result = run(options, tls, connections, options.duration());
        for (Connection connection : connections) {
            if (connection != null) {
                connection.close();
            }
        }
        System.out.println(result.format(options));
        System.exit(result.errors() == 0 ? 0 : 1);
    }

    private record Result(long[] latenciesMicros, long errors, double seconds) {
        String format(Options options) {
            long[] sorted = latenciesMicros.clone();
            Arrays.sort(sorted);
            return String.format(Locale.ROOT,
                "url=%s mode=%s connections=%d requests=%d errors=%d throughput=%.0f/s p50=%dus p90=%dus p99=%dus "
                    + "p99.9=%dus max=%dus",
                options.url(), options.rate() > 0 ? "rate:" + (long) options.rate() + "/s" : "saturation",
                options.connections(), sorted.length, errors, sorted.length / seconds,
                percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99), percentile(sorted, 99.9),
                sorted.length == 0 ? 0 : sorted[sorted.length - 1]);
        }

        private static long percentile(long[] sorted, double p) {
            if (sorted.length == 0) {
                return 0;
            }
            int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
        }
    }

    /** Runs one timed phase over the open connections; a connection that fails is replaced inside the phase. */
    private static Result run(Options options, SSLContext tls, Connection[] connections, Duration duration)
        throws InterruptedException {
        long start = System.nanoTime() + 50_000_000; // let every thread start first
        long end = start + duration.toNanos();
        AtomicLong ticket = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<long[]> perConnection = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long intervalNanos = options.rate() > 0 ? (long) (1e9 / options.rate()) : 0;
        // Per-connection latency buffer: a connection may take any share of the tickets at a fixed rate.
        int capacity = (int) Math.min(1 << 20,
            options.rate() > 0 ? options.rate() * duration.toSeconds() + 1024 : 1 << 18);
        for (int c = 0; c < connections.length; c++) {
            long[] latencies = new long[capacity + 1];
            perConnection.add(latencies);
            int slot = c;
            threads.add(Thread.ofVirtual().start(() -> {
                Connection connection = connections[slot];
                int count = 0;
                while (count < capacity) {
                    long due;
                    if (intervalNanos > 0) {
                        due = start + ticket.getAndIncrement() * intervalNanos;
                        if (due >= end) {
                            break;
                        }
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                    } else {
                        due = Math.max(System.nanoTime(), start);
                        if (due >= end) {
                            break;
                        }
                        long wait = start - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                    }
                    try {
                        if (connection == null) {
                            connection = new Connection(tls, options.url());
                        }
                        connection.post(options.body());
                        latencies[++count] = (System.nanoTime() - due) / 1_000;
                    } catch (IOException | RuntimeException e) {
                        errors.incrementAndGet();
                        if (connection != null) {
                            connection.close();
                            connection = null;
                        }
                    }
                }
                latencies[0] = count;
                connections[slot] = connection;
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        double seconds = (Math.min(System.nanoTime(), Math.max(end, start)) - start) / 1e9;
        int total = perConnection.stream().mapToInt(l -> (int) l[0]).sum();
        long[] all = new long[total];
        int at = 0;
        for (long[] latencies : perConnection) {
            int count = (int) latencies[0];
            System.arraycopy(latencies, 1, all, at, count);
            at += count;
        }
        return new Result(all, errors.get(), seconds);
    }

    /** An HTTP response: its status code and body. */
    record Reply(int status, byte[] body) {
    }

    /**
     * One keep-alive HTTP/1.1 connection; the head of requests to the URL's path is built once. The soak test
     * ({@link Soak}) also posts to other paths and reads the replies.
     */
    static final class Connection {
        /** {@link #readHeaders()}'s answer for a body sent in chunks. */
        private static final long CHUNKED = -2;
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;
        private final String hostHeader;
        private final byte[] head;

        Connection(SSLContext tls, URI url) throws IOException {
            int port = url.getPort() > 0 ? url.getPort() : 443;
            SSLSocket ssl = (SSLSocket) tls.getSocketFactory().createSocket(url.getHost(), port);
            ssl.setTcpNoDelay(true);
            ssl.startHandshake();
            socket = ssl;
            out = ssl.getOutputStream();
            in = new BufferedInputStream(ssl.getInputStream(), 64 * 1024);
            hostHeader = url.getHost() + ":" + port;
            head = head(url.getRawPath());
        }

        private byte[] head(String path) {
            return ("POST " + path + " HTTP/1.1\r\nHost: " + hostHeader
                + "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ")
                .getBytes(StandardCharsets.US_ASCII);
        }

        /** POSTs to the URL's path and skips the response; anything but 200 is an IOException. */
        void post(byte[] body) throws IOException {
            send(head, body);
            int status = readHead();
            long length = readHeaders();
            if (length == CHUNKED) {
                content(length);
            } else {
                in.skipNBytes(length); // EOFException on a short response
            }
            if (status != 200) {
                throw new IOException("unexpected status: " + status);
            }
        }

        /** POSTs to {@code path} and returns the whole response, whatever its status. */
        Reply exchange(String path, byte[] body) throws IOException {
            send(head(path), body);
            int status = readHead();
            return new Reply(status, content(readHeaders()));
        }

        /** The body after the headers: {@code length} bytes, or chunks up to the last (Go chunks a long one). */
        private byte[] content(long length) throws IOException {
            if (length != CHUNKED) {
                return exactly((int) length);
            }
            ByteArrayOutputStream content = new ByteArrayOutputStream();
            for (int size = chunkSize(); size > 0; size = chunkSize()) {
                content.write(exactly(size));
                line(); // the chunk's CRLF
            }
            for (String trailer = line(); !trailer.isEmpty(); trailer = line()) {
                // trailers, none of which matters here, up to the empty line
            }
            return content.toByteArray();
        }

        private byte[] exactly(int length) throws IOException {
            byte[] bytes = in.readNBytes(length);
            if (bytes.length < length) {
                throw new IOException("response ended after " + bytes.length + " of " + length + " bytes");
            }
            return bytes;
        }

        private int chunkSize() throws IOException {
            String line = line();
            int extension = line.indexOf(';');
            try {
                return Integer.parseInt((extension < 0 ? line : line.substring(0, extension)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new IOException("not a chunk size: " + line, e);
            }
        }

        private void send(byte[] requestHead, byte[] body) throws IOException {
            ByteArrayOutputStream request = new ByteArrayOutputStream(requestHead.length + body.length + 16);
            request.write(requestHead);
            request.write((body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            request.write(body);
            request.writeTo(out);
            out.flush();
        }

        private int readHead() throws IOException {
            String status = line();
            if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) {
                throw new IOException("not an HTTP/1.1 status line: " + status);
            }
            try {
                return Integer.parseInt(status.substring(9, 12));
            } catch (NumberFormatException e) {
                throw new IOException("not an HTTP/1.1 status line: " + status, e);
            }
        }

        /** Reads the headers; returns Content-Length, or {@link #CHUNKED}. */
        private long readHeaders() throws IOException {
            long length = -1;
            boolean chunked = false;
            for (String header = line(); !header.isEmpty(); header = line()) {
                if (header.regionMatches(true, 0, "content-length:", 0, 15)) {
                    length = Long.parseLong(header.substring(15).trim());
                } else if (header.regionMatches(true, 0, "transfer-encoding:", 0, 18)) {
                    chunked = header.substring(18).trim().equalsIgnoreCase("chunked");
                }
            }
            if (chunked) {
                return CHUNKED;
            }
            if (length < 0) {
                throw new IOException("response without Content-Length or chunks");
            }
            return length;
        }

        private String line() throws IOException {
            StringBuilder line = new StringBuilder(64);
            for (int b = in.read(); b != '\n'; b = in.read()) {
                if (b < 0) {
                    throw new IOException("connection closed by server");
                }
                if (b != '\r') {
                    line.append((char) b);
                }
            }
            return line.toString();
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a broken connection: nothing left to do
            }
        }
    }

    /** Trusts {@code ca}'s certificates, every certificate if {@code insecure}, else the JDK's default roots. */
    static SSLContext tls(Path ca, boolean insecure) throws Exception {
        TrustManager[] trust;
        if (insecure) {
            trust = new TrustManager[] {new X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }};
        } else if (ca != null) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            try (InputStream in = Files.newInputStream(ca)) {
                int i = 0;
                for (var cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                    store.setCertificateEntry("ca-" + i++, cert);
                }
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            trust = factory.getTrustManagers();
        } else {
            trust = null;
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust, null);
        return context;
    }

    private static Options parse(String[] args) throws IOException {
        URI url = null;
        byte[] body = null;
        double rate = 0;
        Duration duration = Duration.ofSeconds(20);
        Duration warmup = Duration.ofSeconds(5);
        int connections = 16;
        Path ca = null;
        boolean insecure = false;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--insecure")) {
                insecure = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            String value = args[++i];
            switch (flag) {
                case "--url" -> url = URI.create(value);
                case "--body" -> body = Files.readAllBytes(Path.of(value));
                case "--rate" -> rate = Double.parseDouble(value);
                case "--duration" -> duration = Duration.ofSeconds(Long.parseLong(value));
                case "--warmup" -> warmup = Duration.ofSeconds(Long.parseLong(value));
                case "--connections" -> connections = Integer.parseInt(value);
                case "--ca" -> ca = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + flag);
            }
        }
        if (url == null || body == null) {
            throw new IllegalArgumentException("--url and --body are required");
        }
        if (!"https".equals(url.getScheme())) {
            throw new IllegalArgumentException("--url must be https: " + url);
        }
        if (connections < 1 || duration.isNegative() || duration.isZero() || rate < 0) {
            throw new IllegalArgumentException("--connections, --duration must be positive and --rate not negative");
        }
        return new Options(url, body, rate, duration, warmup, connections, ca, insecure);
    }
}

package io.remold.e2e;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * TLS connections that send a POST's headers announcing a body and then only part of it, or none, and hold the
 * connection open (the review's {@code stall.py}, findings F5 and F6). Each connection is watched by a virtual
 * thread that reads until the server closes it.
 */
final class StalledRequests implements AutoCloseable {
    /** How long one connection stayed open; null if the server had not closed it when the watch gave up. */
    record Closed(Duration after) {
    }

    private final List<Socket> sockets = new ArrayList<>();
    private final List<CompletableFuture<Closed>> closes = new ArrayList<>();
    private final ExecutorService watchers = Executors.newVirtualThreadPerTaskExecutor();

    /**
     * Opens {@code count} connections to 127.0.0.1:{@code port}, each sending {@code POST path} with
     * {@code Content-Length: contentLength} and {@code bodyBytes} bytes of it; the server's answer, if any, is
     * read and ignored. A connection the server refuses at once counts as closed.
     */
    static StalledRequests open(SSLContext tls, int port, String path, int count, int contentLength, int bodyBytes,
                                Duration watchAtMost) {
        var stalled = new StalledRequests();
        for (int i = 0; i < count; i++) {
            stalled.stall(tls, port, path, contentLength, bodyBytes, watchAtMost);
        }
        return stalled;
    }

    private void stall(SSLContext tls, int port, String path, int contentLength, int bodyBytes, Duration watchAtMost) {
        long opened = System.nanoTime();
        SSLSocket socket;
        try {
            socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", port);
            sockets.add(socket);
            socket.startHandshake();
            var out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + contentLength + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            if (bodyBytes > 0) {
                out.write(("{" + " ".repeat(bodyBytes - 1)).getBytes(StandardCharsets.US_ASCII));
            }
            out.flush();
        } catch (IOException e) {
            // Refused or closed while sending: the server is shedding the connection, not holding it.
            closes.add(CompletableFuture.completedFuture(new Closed(Duration.ofNanos(System.nanoTime() - opened))));
            return;
        }
        closes.add(CompletableFuture.supplyAsync(() -> awaitClose(socket, opened, watchAtMost), watchers));
    }

    private static Closed awaitClose(Socket socket, long opened, Duration watchAtMost) {
        try {
            socket.setSoTimeout((int) watchAtMost.toMillis());
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[4096];
            while (in.read(buffer) >= 0) {
                // an answer (408, 413, 503...): the connection counts as closed only once the server closes it
            }
        } catch (SocketTimeoutException e) {
            return new Closed(null);
        } catch (IOException e) {
            // reset or TLS alert: closed by the server
        }
        return new Closed(Duration.ofNanos(System.nanoTime() - opened));
    }

    /** Waits for every watch to end; the connections the server had not closed by then have {@code after == null}. */
    List<Closed> awaitWatches() {
        return closes.stream().map(CompletableFuture::join).toList();
    }

    @Override
    public void close() {
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException e) {
                // already gone
            }
        }
        watchers.shutdownNow();
    }
}

package io.remold.server.http;

import io.remold.server.admission.BindingListener;
import io.remold.server.admission.ClusterRefs;
import io.remold.server.files.ChangePoller;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.remold.server.Eventually.await;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

/** Swapping the certificate files changes the certificate new connections see, without a restart. */
class CertificateReloadTest {
    @TempDir
    Path dir;

    /** True if a new connection from a client trusting only {@code ca} gets through. */
    static boolean trusted(TestServer server, Path ca) {
        try (HttpClient client = TestServer.client(ca)) {
            client.send(HttpRequest.newBuilder(server.uri("/healthz")).build(),
                    HttpResponse.BodyHandlers.discarding());
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void newConnectionsSeeTheSwappedCertificate() throws Exception {
        try (var server = new TestServer(dir, 4096, ClusterRefs.NONE, BindingListener.NONE)) {
            TlsFiles next = TlsFiles.generateSelfSigned(dir.resolve("next"), Instant.now());
            Path oldCa = Files.copy(server.tls.ca(), dir.resolve("old-ca.crt"));
            assertThat(trusted(server, oldCa), is(true));
            assertThat(trusted(server, next.ca()), is(false));

            // The way a Secret volume changes: the key first, then the certificate, each replaced whole.
            move(next.key(), server.tls.key());
            move(next.cert(), server.tls.cert());

            // The watcher polls every 50 ms: wait for the first connection that sees the new one.
            await("a connection trusting only the new CA", () -> trusted(server, next.ca()));
            assertThat(trusted(server, oldCa), is(false));
        }
    }

    @Test
    void aBrokenCertificateFileKeepsTheCurrentCertificate() throws Exception {
        var failedReloads = new CopyOnWriteArrayList<String>();
        // Held here: the logging framework keeps loggers only weakly, and with them the handler.
        Logger watcher = Logger.getLogger(ChangePoller.class.getName());
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getMessage().startsWith("reload failed")) {
                    failedReloads.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        watcher.addHandler(handler);
        try (var server = new TestServer(dir, 4096, ClusterRefs.NONE, BindingListener.NONE)) {
            Path ca = Files.copy(server.tls.ca(), dir.resolve("ca-copy.crt"));
            Files.writeString(server.tls.cert(), "not a certificate");
            await("the watcher's attempt to load the broken file", () -> !failedReloads.isEmpty());
            assertThat(trusted(server, ca), is(true));
            // A later good pair is still picked up: the failed reload did not stop the watcher.
            TlsFiles next = TlsFiles.generateSelfSigned(dir.resolve("next"), Instant.now());
            move(next.key(), server.tls.key());
            move(next.cert(), server.tls.cert());
            await("a connection trusting only the new CA", () -> trusted(server, next.ca()));
        } finally {
            watcher.removeHandler(handler);
        }
    }

    private static void move(Path from, Path to) {
        try {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.remold.server.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Calls {@code onChange} when files change. Polls the size and modification time of every file (following
 * symbolic links, so the atomic swap of a Kubernetes Secret or ConfigMap volume counts) instead of a
 * WatchService, which misses those swaps. A change is reported once it has been stable for one interval, so a
 * burst of edits becomes one reload.
 */
public final class ChangePoller implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ChangePoller.class.getName());

    private final Supplier<List<Path>> files;
    private final Runnable onChange;
    private final ScheduledExecutorService scheduler;
    private String reported;
    private String seen;

    /** {@code files} is asked for the current list each time (a folder's contents change too). */
    public ChangePoller(String name, Supplier<List<Path>> files, Duration interval, Runnable onChange) {
        this.files = files;
        this.onChange = onChange;
        this.reported = fingerprint();
        this.seen = reported;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(name).factory());
        scheduler.scheduleWithFixedDelay(this::poll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void poll() {
        try {
            String now = fingerprint();
            boolean stable = now.equals(seen);
            seen = now;
            if (stable && !now.equals(reported)) {
                reported = now;
                onChange.run();
            }
        } catch (RuntimeException e) {
            // Keep polling: the next change may fix whatever went wrong.
            LOG.log(Level.WARNING, "reload failed: " + e.getMessage(), e);
        }
    }

    private String fingerprint() {
        var sb = new StringBuilder();
        for (Path file : files.get()) {
            sb.append(file).append('\0');
            try {
                var attributes = Files.readAttributes(file, BasicFileAttributes.class);
                sb.append(attributes.size()).append('\0').append(attributes.lastModifiedTime().toMillis());
            } catch (IOException e) {
                sb.append("absent");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The regular files directly inside {@code dir} whose names end with one of {@code suffixes}, sorted. */
    public static List<Path> filesIn(Path dir, List<String> suffixes) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> suffixes.stream().anyMatch(s -> p.getFileName().toString().endsWith(s)))
                    .filter(p -> !p.getFileName().toString().startsWith("."))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            LOG.warning("cannot list " + dir + ": " + e.getMessage());
            return List.of();
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}

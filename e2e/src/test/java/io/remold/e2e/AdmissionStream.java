package io.remold.e2e;

import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1ObjectMeta;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A steady stream of ConfigMap creates through the API server while something disrupts Remold. A create counts as
 * admitted only if the API server accepted it and the object carries the label the namespace's Patch rule adds: the
 * mutating webhook fails open, so a skipped mutation is a failure that no error reports.
 */
final class AdmissionStream {
    static final String LABEL = "remold.io/admitted";
    /** The stream goes on this long after the disruption has finished, to catch what it broke late. */
    private static final Duration AFTER = Duration.ofSeconds(10);
    /** A disruption that never finishes still ends the stream. */
    private static final Duration LIMIT = Duration.ofSeconds(240);

    /** What the stream saw. */
    record Result(String name, int attempted, List<String> failures, List<Long> latenciesMicros, Duration length) {
        long percentileMicros(double q) {
            var sorted = new ArrayList<>(latenciesMicros);
            Collections.sort(sorted);
            return sorted.isEmpty() ? 0 : sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(q * sorted.size()) - 1));
        }
    }

    /** Something done to Remold while the stream runs; returns once its effect is complete. */
    interface Disruption {
        void run() throws Exception;
    }

    private AdmissionStream() {
    }

    /**
     * Creates ConfigMaps named {@code name-N} in the namespace at {@code perSecond}, starting the disruption after
     * five seconds, for at least {@code minimum} and until {@link #AFTER} past the disruption's end.
     */
    static Result run(String name, String namespace, int perSecond, Duration minimum, Disruption disruption)
            throws InterruptedException {
        return run(name, namespace, perSecond, minimum, disruption, true);
    }

    /**
     * As {@link #run}, for a disruption that removes Remold: a create counts as admitted once the API server accepts
     * it, whether or not Remold (still) labelled it.
     */
    static Result runWhileRemoved(String name, String namespace, int perSecond, Duration minimum,
                                  Disruption disruption) throws InterruptedException {
        return run(name, namespace, perSecond, minimum, disruption, false);
    }

    private static Result run(String name, String namespace, int perSecond, Duration minimum, Disruption disruption,
                              boolean labelled) throws InterruptedException {
        var core = new CoreV1Api(Kind.api());
        var failures = new ConcurrentLinkedQueue<String>();
        var latencies = new ConcurrentLinkedQueue<Long>();
        var attempted = new AtomicInteger();
        long start = System.nanoTime();
        var disruptionEnd = new AtomicLong(Long.MAX_VALUE);
        var disrupted = new CountDownLatch(1);
        Thread.ofPlatform().name("disruption-" + name).start(() -> {
            try {
                Thread.sleep(5_000);
                disruption.run();
            } catch (Exception | AssertionError e) {
                failures.add("the disruption itself failed: " + e);
            } finally {
                disruptionEnd.set(System.nanoTime());
                disrupted.countDown();
            }
        });
        try (var creates = Executors.newVirtualThreadPerTaskExecutor();
             var ticks = Executors.newSingleThreadScheduledExecutor()) {
            ticks.scheduleAtFixedRate(() -> {
                int n = attempted.incrementAndGet();
                creates.execute(() -> create(core, namespace, name + "-" + n, name, labelled, failures, latencies));
            }, 0, 1_000_000 / perSecond, TimeUnit.MICROSECONDS);
            while (true) {
                long now = System.nanoTime();
                boolean longEnough = now - start >= minimum.toNanos();
                boolean settled = now - disruptionEnd.get() >= AFTER.toNanos();
                if (longEnough && settled || now - start >= LIMIT.toNanos()) {
                    break;
                }
                Thread.sleep(100);
            }
            ticks.shutdownNow();
        }
        if (!disrupted.await(0, TimeUnit.SECONDS)) {
            failures.add("the disruption did not finish within " + LIMIT.toSeconds() + " s");
        }
        return new Result(name, attempted.get(), List.copyOf(failures), List.copyOf(latencies),
                Duration.ofNanos(System.nanoTime() - start));
    }

    private static void create(CoreV1Api core, String namespace, String objectName, String stream, boolean labelled,
                               ConcurrentLinkedQueue<String> failures, ConcurrentLinkedQueue<Long> latencies) {
        var configMap = new V1ConfigMap().metadata(new V1ObjectMeta().name(objectName).labels(Map.of("stream", stream)))
                .data(Map.of("n", objectName));
        long t0 = System.nanoTime();
        try {
            V1ConfigMap created = core.createNamespacedConfigMap(namespace, configMap).execute();
            latencies.add((System.nanoTime() - t0) / 1000);
            var labels = created.getMetadata().getLabels();
            if (labelled && (labels == null || !("seen-" + objectName).equals(labels.get(LABEL)))) {
                failures.add(objectName + ": created without the Patch rule's label " + LABEL + " (labels " + labels
                        + ")");
            }
        } catch (ApiException e) {
            failures.add(objectName + ": HTTP " + e.getCode() + " " + e.getResponseBody());
        } catch (RuntimeException e) {
            failures.add(objectName + ": " + e);
        }
    }
}

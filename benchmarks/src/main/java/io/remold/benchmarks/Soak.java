package io.remold.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * The soak test of a Remold server in cluster mode (benchmarks/soak.sh starts the API server and the server): an
 * open-loop load of AdmissionReviews at a fixed rate on /mutate and /validate ({@link SoakRequests}) while
 * {@link SoakCluster} creates, changes and deletes ModRules, Namespaces and Nodes every second.
 *
 * <p>It asserts: no 5xx and no transport error; every sampled answer (1 in {@code --sample}) equal to what the
 * engine decides in-process for the rules, namespaces and nodes present at that moment, as {@code remold eval}
 * would; and the server's RSS, sampled every few seconds, flat after the warm-up (least-squares slope). A sample is
 * compared only when the state has been stable for {@code --settle-ms} before the request was sent and did not
 * change before its answer came (the informers need time to see a change); the others are counted as skipped.
 *
 * <pre>
 * Soak --webhook https://127.0.0.1:PORT --admin http://127.0.0.1:ADMIN_PORT --ca FILE --api http://127.0.0.1:PROXY_PORT --pid SERVER_PID
 *      [--minutes 2] [--rate 1000] [--connections 16] [--sample 100] [--settle-ms 500] [--rules 40]
 *      [--warmup-minutes M] [--max-rss-slope 1.0] [--seed 1]
 * </pre>
 * Exit 0 when every assertion holds, 1 otherwise, 2 on a usage error.
 */
public final class Soak {
    private static final Pattern ERRORS = Pattern.compile(
            "(?m)^remold_requests_total\\{endpoint=\"([^\"]+)\",outcome=\"error\"} (\\d+)");
    private static final Pattern RULES = Pattern.compile("(?m)^remold_rules (\\d+)");
    private static final Pattern RULE_SERIES = Pattern.compile("(?m)^remold_rule_matches_total\\{");
    private static final int MISMATCHES_SHOWN = 5;

    private record Options(URI webhook, URI admin, Path ca, URI api, long pid, double minutes, double rate, int connections,
                           int sample, long settleMillis, int rules, double warmupMinutes, double maxRssSlope,
                           long seed) {
    }

    /** What the load saw; counters are shared by the connections. */
    private static final class Tally {
        final AtomicLong ok = new AtomicLong();
        final AtomicLong serverErrors = new AtomicLong();
        final AtomicLong otherStatus = new AtomicLong();
        final AtomicLong transportErrors = new AtomicLong();
        final AtomicLong compared = new AtomicLong();
        /** Compared answers that patched or rejected: the rules did something to what was checked. */
        final AtomicLong comparedPatched = new AtomicLong();
        final AtomicLong comparedRejected = new AtomicLong();
        final AtomicLong skipped = new AtomicLong();
        final AtomicLong mismatched = new AtomicLong();
        final AtomicLong stale = new AtomicLong();
        final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        /** Latency of each answered request from its due time, microseconds, in completion order. */
        final long[] latencies;
        final AtomicInteger recorded = new AtomicInteger();

        Tally(int capacity) {
            latencies = new long[capacity];
        }

        void latency(long micros) {
            int at = recorded.getAndIncrement();
            if (at < latencies.length) {
                latencies[at] = micros;
            }
        }

        void problem(String what) {
            if (problems.size() < 20) {
                problems.add(what);
            }
        }
    }

    /** RSS in MiB at minutes since the load started. */
    private record RssSample(double minutes, double mib) {
    }

    private Soak() {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: Soak --webhook URL --admin URL --ca FILE --api URL --pid PID [--minutes M] [--rate N] "
                    + "[--connections N] [--sample N] [--settle-ms MS] [--rules N] [--warmup-minutes M] "
                    + "[--max-rss-slope MIB_PER_MIN] [--seed N]");
            System.exit(2);
            return;
        }
        System.exit(run(options) ? 0 : 1);
    }

    private static boolean run(Options options) throws Exception {
        SSLContext tls = LoadGenerator.tls(options.ca(), false);
        // The server's metrics are on its plain-HTTP admin listener.
        HttpClient metricsClient = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        var cluster = new SoakCluster(options.api(), options.seed());
        cluster.setUp(options.rules());
        awaitRules(metricsClient, options.admin(), cluster.ruleCount());
        Thread.sleep(options.settleMillis());
        List<SoakRequests.Review> reviews = SoakRequests.generate(512, options.seed());

        long durationNanos = (long) (options.minutes() * 60e9);
        long expected = (long) (options.rate() * options.minutes() * 60);
        var tally = new Tally((int) Math.min(Integer.MAX_VALUE - 8, expected + expected / 10 + 1024));
        var connections = new LoadGenerator.Connection[options.connections()];
        for (int c = 0; c < connections.length; c++) {
            connections[c] = new LoadGenerator.Connection(tls, options.webhook());
        }
        long start = System.nanoTime() + 50_000_000;
        long end = start + durationNanos;
        var rss = new ArrayList<RssSample>();
        long cpuTicksBefore = cpuTicks(options.pid());
        System.out.printf(Locale.ROOT, "# soak: %.1f min at %.0f req/s over %d connections, %d rules, churn every "
                        + "second, 1 in %d answers compared after %d ms of stable state, server pid %d, RSS %.0f MiB%n",
                options.minutes(), options.rate(), options.connections(), cluster.ruleCount(), options.sample(),
                options.settleMillis(), options.pid(), rssMib(options.pid()));

        Thread churn = Thread.ofPlatform().name("soak-churn").start(() -> churn(cluster, start, end, tally));
        List<Thread> load = startLoad(options, tls, connections, reviews, cluster, tally, start, end);
        monitor(options, tally, cluster, rss, start, end);
        for (Thread thread : load) {
            thread.join();
        }
        churn.join();
        double seconds = (System.nanoTime() - start) / 1e9;
        long cpuTicks = cpuTicks(options.pid()) - cpuTicksBefore;
        for (var connection : connections) {
            if (connection != null) {
                connection.close();
            }
        }
        return report(options, metricsClient, cluster, tally, rss, seconds, cpuTicks);
    }

    /** One platform thread: a churn tick every second until the end; a failed API call stops the soak's churn. */
    private static void churn(SoakCluster cluster, long start, long end, Tally tally) {
        for (long tick = 1; start + tick * 1_000_000_000L < end; tick++) {
            long wait = start + tick * 1_000_000_000L - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            try {
                cluster.tick();
            } catch (IOException | RuntimeException e) {
                tally.problem("churn failed: " + e.getMessage());
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * One virtual thread per connection, taking tickets: request k is due at start + k / rate, and its latency
     * counts from then (no coordinated omission). Every {@code sample}-th ticket's answer is compared.
     */
    private static List<Thread> startLoad(Options options, SSLContext tls, LoadGenerator.Connection[] connections,
                                          List<SoakRequests.Review> reviews, SoakCluster cluster, Tally tally,
                                          long start, long end) {
        long intervalNanos = (long) (1e9 / options.rate());
        var ticket = new AtomicLong();
        var threads = new ArrayList<Thread>();
        for (int c = 0; c < connections.length; c++) {
            int slot = c;
            threads.add(Thread.ofVirtual().start(() -> {
                LoadGenerator.Connection connection = connections[slot];
                while (true) {
                    long k = ticket.getAndIncrement();
                    long due = start + k * intervalNanos;
                    if (due >= end) {
                        break;
                    }
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    // Spread the tickets over the reviews (a prime stride), the same review on no two neighbours.
                    SoakRequests.Review review = reviews.get((int) ((k * 7919) % reviews.size()));
                    boolean sampled = k % options.sample() == 0;
                    SoakCluster.State state = cluster.state();
                    long epoch = cluster.epoch();
                    long sent = System.nanoTime();
                    try {
                        if (connection == null) {
                            connection = new LoadGenerator.Connection(tls, options.webhook());
                        }
                        LoadGenerator.Reply reply = connection.exchange(review.path(), review.body());
                        tally.latency((System.nanoTime() - due) / 1_000);
                        if (reply.status() == 200) {
                            tally.ok.incrementAndGet();
                        } else {
                            (reply.status() >= 500 ? tally.serverErrors : tally.otherStatus).incrementAndGet();
                            tally.problem("HTTP " + reply.status() + " from " + review.path() + ": "
                                    + new String(reply.body(), StandardCharsets.UTF_8));
                            continue;
                        }
                        if (sampled) {
                            boolean stable = state.epoch() == epoch && cluster.epoch() == epoch
                                    && sent - state.stableSinceNanos() >= options.settleMillis() * 1_000_000;
                            compare(review, reply, stable ? state : null, tally, k);
                        }
                    } catch (IOException | RuntimeException e) {
                        tally.transportErrors.incrementAndGet();
                        tally.problem("transport error on " + review.path() + ": " + e);
                        if (connection != null) {
                            connection.close();
                            connection = null;
                        }
                    }
                }
                connections[slot] = connection;
            }));
        }
        return threads;
    }

    /** Compares a sampled answer with the engine's in {@code state}; null: the state was not stable, skip. */
    private static void compare(SoakRequests.Review review, LoadGenerator.Reply reply, SoakCluster.State state,
                                Tally tally, long ticket) {
        if (state == null) {
            tally.skipped.incrementAndGet();
            return;
        }
        tally.compared.incrementAndGet();
        SoakRequests.Answer got = SoakRequests.answer(reply.body());
        SoakRequests.Answer want = review.expected(state);
        if (got.equals(want)) {
            if (!want.patch().isEmpty()) {
                tally.comparedPatched.incrementAndGet();
            }
            if (!want.allowed()) {
                tally.comparedRejected.incrementAndGet();
            }
            return;
        }
        tally.mismatched.incrementAndGet();
        // Equal to the state before the last change: the change had not reached the server after the settle time.
        boolean stale = state.previous() != null && got.equals(review.expected(state.previous()));
        if (stale) {
            tally.stale.incrementAndGet();
        }
        if (tally.mismatched.get() <= MISMATCHES_SHOWN) {
            tally.problem((stale ? "stale" : "mismatch") + " on ticket " + ticket + ", " + review.path() + " "
                    + review.operation() + " " + review.namespace() + "/" + review.object().asJsonObject()
                    .getJsonObject("metadata").getString("name") + " node " + review.nodeName()
                    + ": server " + got + ", engine " + want);
        }
    }

    /** Every 5 s: RSS; every minute (or quarter of the run if shorter): a progress line. */
    private static void monitor(Options options, Tally tally, SoakCluster cluster, List<RssSample> rss, long start,
                                long end) throws IOException, InterruptedException {
        long progressEvery = (long) Math.min(60e9, (end - start) / 4.0);
        long nextProgress = start + progressEvery;
        int lastRecorded = 0;
        long lastOk = 0;
        long lastAt = start;
        for (long at = start; at < end; at += 5_000_000_000L) {
            long wait = at - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            rss.add(new RssSample((System.nanoTime() - start) / 60e9, rssMib(options.pid())));
            if (System.nanoTime() >= nextProgress) {
                long now = System.nanoTime();
                int recorded = Math.min(tally.recorded.get(), tally.latencies.length);
                long[] window = Arrays.copyOfRange(tally.latencies, lastRecorded, recorded);
                Arrays.sort(window);
                long ok = tally.ok.get();
                SoakCluster.Counts counts = cluster.counts();
                System.out.printf(Locale.ROOT, "t=%.1fmin rate=%.0f/s p50=%dus p99=%dus max=%dus 5xx=%d other=%d "
                                + "transport=%d compared=%d skipped=%d mismatched=%d rules=%d rule_changes=%d "
                                + "ns_changes=%d node_changes=%d rss=%.0fMiB%n",
                        (now - start) / 60e9, (ok - lastOk) / ((now - lastAt) / 1e9), percentile(window, 50),
                        percentile(window, 99), window.length == 0 ? 0 : window[window.length - 1],
                        tally.serverErrors.get(), tally.otherStatus.get(), tally.transportErrors.get(),
                        tally.compared.get(), tally.skipped.get(), tally.mismatched.get(), cluster.ruleCount(),
                        counts.rulesCreated() + counts.rulesChanged() + counts.rulesDeleted(),
                        counts.namespaceChanges(), counts.nodeChanges(), rss.getLast().mib());
                lastRecorded = recorded;
                lastOk = ok;
                lastAt = now;
                nextProgress += progressEvery;
            }
        }
    }

    private static boolean report(Options options, HttpClient metricsClient, SoakCluster cluster, Tally tally,
                                  List<RssSample> rss, double seconds, long cpuTicks)
            throws IOException, InterruptedException {
        int recorded = Math.min(tally.recorded.get(), tally.latencies.length);
        long[] all = Arrays.copyOf(tally.latencies, recorded);
        Arrays.sort(all);
        long answered = tally.ok.get() + tally.serverErrors.get() + tally.otherStatus.get();
        String metrics = get(metricsClient, options.admin().resolve("/metrics"));
        long serverErrorCount = 0;
        for (Matcher m = ERRORS.matcher(metrics); m.find(); ) {
            serverErrorCount += Long.parseLong(m.group(2));
        }
        long ruleSeries = RULE_SERIES.matcher(metrics).results().count();
        double warmup = options.warmupMinutes() >= 0 ? options.warmupMinutes() : Math.min(5, options.minutes() / 4);
        List<RssSample> steady = rss.stream().filter(s -> s.minutes() >= warmup).toList();
        double slope = slope(steady);
        double minRss = steady.stream().mapToDouble(RssSample::mib).min().orElse(Double.NaN);
        double maxRss = steady.stream().mapToDouble(RssSample::mib).max().orElse(Double.NaN);
        SoakCluster.Counts counts = cluster.counts();
        double cpuSeconds = cpuTicks / 100.0; // USER_HZ, 100 on Linux

        System.out.printf(Locale.ROOT, "requests=%d answered_rate=%.0f/s target_rate=%.0f/s p50=%dus p99=%dus "
                        + "p99.9=%dus max=%dus%n", answered, answered / seconds, options.rate(), percentile(all, 50),
                percentile(all, 99), percentile(all, 99.9), all.length == 0 ? 0 : all[all.length - 1]);
        System.out.printf(Locale.ROOT, "http_5xx=%d other_non_200=%d transport_errors=%d server_error_metric=%d%n",
                tally.serverErrors.get(), tally.otherStatus.get(), tally.transportErrors.get(), serverErrorCount);
        System.out.printf(Locale.ROOT, "samples compared=%d (equal and patched=%d, equal and rejected=%d) "
                        + "skipped_unsettled=%d mismatched=%d (of which stale=%d)%n", tally.compared.get(),
                tally.comparedPatched.get(), tally.comparedRejected.get(), tally.skipped.get(),
                tally.mismatched.get(), tally.stale.get());
        System.out.printf(Locale.ROOT, "churn rules_created=%d rules_changed=%d rules_deleted=%d namespace_changes=%d "
                        + "node_changes=%d rules_now=%d rule_counter_series=%d%n", counts.rulesCreated(),
                counts.rulesChanged(), counts.rulesDeleted(), counts.namespaceChanges(), counts.nodeChanges(),
                cluster.ruleCount(), ruleSeries);
        System.out.printf(Locale.ROOT, "server_cpu=%.0f%% of one core (%.0fus per request)%n",
                100 * cpuSeconds / seconds, answered == 0 ? 0 : cpuSeconds * 1e6 / answered);
        System.out.printf(Locale.ROOT, "rss after %.1f min warm-up: %d samples, %.0f to %.0f MiB, slope %+.3f MiB/min "
                + "(limit ±%.2f)%n", warmup, steady.size(), minRss, maxRss, slope, options.maxRssSlope());
        tally.problems.forEach(p -> System.out.println("problem: " + p));

        var failures = new ArrayList<String>();
        if (tally.serverErrors.get() + serverErrorCount > 0) {
            failures.add("5xx answers");
        }
        if (tally.transportErrors.get() + tally.otherStatus.get() > 0) {
            failures.add("transport errors or unexpected statuses");
        }
        if (tally.mismatched.get() > 0) {
            failures.add("sampled answers differ from the engine's");
        }
        if (tally.compared.get() == 0) {
            failures.add("no sample compared");
        }
        if (steady.size() < 3 || Double.isNaN(slope) || Math.abs(slope) > options.maxRssSlope()) {
            failures.add("RSS not flat after warm-up");
        }
        if (tally.problems.stream().anyMatch(p -> p.startsWith("churn failed"))) {
            failures.add("churn stopped");
        }
        System.out.println(failures.isEmpty() ? "SOAK PASSED" : "SOAK FAILED: " + String.join(", ", failures));
        return failures.isEmpty();
    }

    /** Least-squares slope of RSS over time, MiB per minute. */
    static double slope(List<RssSample> samples) {
        int n = samples.size();
        if (n < 2) {
            return Double.NaN;
        }
        double meanX = samples.stream().mapToDouble(RssSample::minutes).average().orElseThrow();
        double meanY = samples.stream().mapToDouble(RssSample::mib).average().orElseThrow();
        double sxy = 0;
        double sxx = 0;
        for (RssSample s : samples) {
            sxy += (s.minutes() - meanX) * (s.mib() - meanY);
            sxx += (s.minutes() - meanX) * (s.minutes() - meanX);
        }
        return sxy / sxx;
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    /** Waits until the server's engine holds the {@code count} rules the cluster was given. */
    private static void awaitRules(HttpClient client, URI admin, int count)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        String metrics = "";
        while (System.nanoTime() < deadline) {
            metrics = get(client, admin.resolve("/metrics"));
            Matcher m = RULES.matcher(metrics);
            if (m.find() && Integer.parseInt(m.group(1)) == count) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the server did not reach " + count + " rules in 60 s:\n" + metrics);
    }

    private static String get(HttpClient client, URI uri) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private static double rssMib(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
            }
        }
        throw new IOException("no VmRSS in /proc/" + pid + "/status");
    }

    /** User + system CPU time of a process, in clock ticks. */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime (fields 14 and 15)
    }

    private static Options parse(String[] args) {
        URI webhook = null;
        URI admin = null;
        Path ca = null;
        URI api = null;
        long pid = -1;
        double minutes = 2;
        double rate = 1000;
        int connections = 16;
        int sample = 100;
        long settle = 500;
        int rules = 40;
        double warmup = -1;
        double maxSlope = 1.0;
        long seed = 1;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(flag + " needs a value");
            }
            String value = args[++i];
            switch (flag) {
                case "--webhook" -> webhook = URI.create(value);
                case "--admin" -> admin = URI.create(value);
                case "--ca" -> ca = Path.of(value);
                case "--api" -> api = URI.create(value);
                case "--pid" -> pid = Long.parseLong(value);
                case "--minutes" -> minutes = Double.parseDouble(value);
                case "--rate" -> rate = Double.parseDouble(value);
                case "--connections" -> connections = Integer.parseInt(value);
                case "--sample" -> sample = Integer.parseInt(value);
                case "--settle-ms" -> settle = Long.parseLong(value);
                case "--rules" -> rules = Integer.parseInt(value);
                case "--warmup-minutes" -> warmup = Double.parseDouble(value);
                case "--max-rss-slope" -> maxSlope = Double.parseDouble(value);
                case "--seed" -> seed = Long.parseLong(value);
                default -> throw new IllegalArgumentException("unknown option " + flag);
            }
        }
        if (webhook == null || admin == null || ca == null || api == null || pid < 0) {
            throw new IllegalArgumentException("--webhook, --admin, --ca, --api and --pid are required");
        }
        if (minutes <= 0 || rate <= 0 || connections < 1 || sample < 1 || rules < 1 || settle < 0) {
            throw new IllegalArgumentException("--minutes, --rate, --connections, --sample and --rules must be "
                    + "positive, --settle-ms not negative");
        }
        return new Options(webhook, admin, ca, api, pid, minutes, rate, connections, sample, settle, rules, warmup,
                maxSlope, seed);
    }
}

package io.remold.cue;

import jakarta.json.spi.JsonProvider;
import jakarta.json.JsonObject;
import jakarta.json.stream.JsonParsingException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One worker process, serving one call at a time: a JSON line out, JSON lines back until the answer (an
 * {@code http} line is a question, replied to before the answer comes). The deadline kills the process, which ends
 * the call; a process that died, or was killed, is not used again.
 */
final class WorkerProcess {
    private static final JsonProvider JSON = JsonProvider.provider();
    private static final int MAX_STDERR = 2048;
    private static final String READY = "{\"ok\":true}";

    private final Process process;
    private final OutputStream in;
    private final InputStream out;
    private final int maxLine;
    private volatile boolean killed;
    private volatile boolean stopped;
    private boolean dead;
    private boolean started;

    private WorkerProcess(Process process, int maxLine) {
        this.process = process;
        this.in = process.getOutputStream();
        this.out = process.getInputStream();
        this.maxLine = maxLine;
    }

    /** Starts a worker with no environment; its only channels are its pipes. */
    static WorkerProcess start(Path binary, CueLimits limits) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(binary.toString(),
                "-memory", Long.toString(limits.memoryBytes() >> 20),
                "-max-output", Integer.toString(limits.maxOutputBytes()));
        builder.environment().clear();
        builder.directory(binary.getParent().toFile());
        // Room for an answer of maxOutputBytes with every character escaped.
        return new WorkerProcess(builder.start(), limits.maxOutputBytes() * 6 + 8192);
    }

    boolean usable() {
        return !dead && !killed && process.isAlive();
    }

    /**
     * Sends one request and returns its answer; {@link Died} when the process ends first (killed at
     * {@code deadlineNanos}, or by itself: its memory bound, a crash).
     */
    JsonObject call(JsonObject request, long deadlineNanos, CueEvaluator.HttpTasks http,
                    ScheduledExecutorService timer) throws Died, CueException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw new CueException("the CUE evaluation's deadline passed before it started");
        }
        ScheduledFuture<?> deadline;
        try {
            deadline = timer.schedule(this::kill, left, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            throw new CueException("the CUE evaluator is closed");
        }
        try {
            if (!started) {
                awaitReady();
            }
            JsonObject answer = exchange(request);
            while (answer.containsKey("http")) {
                answer = exchange(reply(http, answer.getJsonObject("http")));
            }
            return answer;
        } catch (IOException | JsonParsingException | ClassCastException e) {
            dead = true;
            String cause = cause(e);
            kill();
            throw new Died(cause, !started);
        } finally {
            deadline.cancel(false);
            if (killed) {
                dead = true; // killed as the answer arrived: the answer stands, the process is gone
            }
        }
    }

    private static JsonObject reply(CueEvaluator.HttpTasks http, JsonObject task) {
        try {
            return JSON.createObjectBuilder().add("value", http.call(task)).build();
        } catch (CueException e) {
            return JSON.createObjectBuilder().add("error", String.valueOf(e.getMessage())).build();
        }
    }

    /** The worker's first line says it set its bounds; one that dies before cannot start at all. */
    private void awaitReady() throws IOException {
        if (!readLine().equals(READY)) {
            throw new IOException("it did not announce itself");
        }
        started = true;
    }

    private JsonObject exchange(JsonObject message) throws IOException {
        in.write((message.toString() + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        String line = readLine();
        try (var reader = JSON.createReader(new StringReader(line))) {
            return reader.readObject();
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        for (int b = out.read(); b != '\n'; b = out.read()) {
            if (b < 0) {
                throw new IOException("ended");
            }
            if (line.size() == maxLine) {
                throw new IOException("its answer exceeds " + maxLine + " bytes");
            }
            line.write(b);
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    /** Why the process ended: the deadline, or its exit code and first words on stderr. */
    private String cause(Exception e) {
        if (stopped) {
            return "the CUE evaluator was closed during the evaluation";
        }
        if (killed) {
            return started ? "the evaluation overran its deadline, and its worker was stopped"
                    : "the CUE worker did not start before the deadline";
        }
        try {
            if (!process.waitFor(2, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return "the CUE worker failed: " + e.getMessage();
            }
            byte[] stderr = process.getErrorStream().readNBytes(MAX_STDERR);
            String said = new String(stderr, StandardCharsets.UTF_8).strip().lines().findFirst().orElse("");
            return "the CUE worker exited (code " + process.exitValue() + ")"
                    + (said.isEmpty() ? "" : ": " + said) + (started ? " during the evaluation" : " as it started");
        } catch (IOException | InterruptedException failed) {
            if (failed instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return "the CUE worker failed: " + e.getMessage();
        }
    }

    ProcessHandle handle() {
        return process.toHandle();
    }

    /** At the deadline, or once the call failed. */
    void kill() {
        killed = true;
        process.destroyForcibly();
    }

    /** When the evaluator closes. */
    void stop() {
        stopped = true;
        kill();
    }

    /** The process ended during a call, with why; {@code atStart} when it ended before it was ready. */
    static final class Died extends Exception {
        final boolean atStart;

        Died(String message, boolean atStart) {
            super(message, null, false, false);
            this.atStart = atStart;
        }
    }
}

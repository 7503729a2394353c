package io.remold.benchmarks;

import io.remold.json.JsonTree;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reading a request body into a jakarta.json tree, in ns/op: Parsson's reader against Remold's {@link JsonTree}.
 * Run: {@code java -jar benchmarks/target/remold-benchmarks.jar ParseBenchmark -prof gc}.
 *
 * <ul>
 *   <li>{@code create}: the benchmark's CREATE AdmissionReview ({@code admission-review.json}, 5.2 KB).</li>
 *   <li>{@code update}: the same review as an UPDATE whose {@code oldObject} is the Deployment again (9.8 KB);
 *       {@code tree} defers {@code oldObject} the way the server does.</li>
 * </ul>
 * {@code skipOnly} is the floor: the same body checked for syntax and built not at all (the whole review is
 * deferred the way {@code oldObject} is).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class ParseBenchmark {
    private static final JsonProvider PARSSON = JsonProvider.provider();
    private static final Set<String> DEFERRED = Set.of("oldObject");

    @Param({"create", "update"})
    public String review;

    private byte[] body;
    /** The body as the deferred member of an envelope: {@code skipOnly} checks all of it and builds nothing. */
    private byte[] wrapped;

    @Setup
    public void setUp() throws IOException {
        byte[] create;
        try (InputStream in = ParseBenchmark.class.getResourceAsStream("admission-review.json")) {
            create = in.readAllBytes();
        }
        String text = new String(create, StandardCharsets.UTF_8);
        if (review.equals("update")) {
            String object = ((JsonObject) JsonTree.parse(create)).getJsonObject("request").getJsonObject("object")
                    .toString();
            text = text.replace("\"operation\":\"CREATE\"", "\"operation\":\"UPDATE\"")
                    .replace("\"oldObject\":null", "\"oldObject\":" + object);
        }
        body = text.getBytes(StandardCharsets.UTF_8);
        wrapped = ("{\"x\":{\"oldObject\":" + text + "}}").getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public JsonValue parsson() {
        try (var reader = PARSSON.createReader(new ByteArrayInputStream(body))) {
            return reader.readValue();
        }
    }

    @Benchmark
    public JsonValue skipOnly() {
        return JsonTree.parse(wrapped, DEFERRED);
    }

    @Benchmark
    public JsonValue tree() {
        return JsonTree.parse(body, DEFERRED);
    }
}

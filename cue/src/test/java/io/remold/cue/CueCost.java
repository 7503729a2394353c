package io.remold.cue;

import jakarta.json.Json;
import jakarta.json.JsonObject;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.remold.cue.CueEvaluator.Owner.ADMINISTRATOR;

/**
 * Prints what CUE costs through the supervisor (docs/architecture.md, "How CUE runs"): the first compile (binary
 * extracted, worker started), the per-evaluation time of a small override policy, and the worker's resident memory.
 * Run: java -cp cue/target/classes:cue/target/test-classes:JSON_JARS io.remold.cue.CueCost [CALLS]
 */
final class CueCost {
    private static final String OVERRIDE = """
            object: _ @tag(object)
            patches: [
              if object.metadata.labels.app == "web" {
                {op: "add", path: "/metadata/annotations/owner", value: "team-" + object.metadata.name}
              },
            ]
            """;

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        JsonObject pod = Json.createObjectBuilder().add("metadata", Json.createObjectBuilder().add("name", "web-1")
                .add("labels", Json.createObjectBuilder().add("app", "web"))
                .add("annotations", Json.createObjectBuilder())).build();
        List<CueEvaluator.CueParameter> parameters = List.of(new CueEvaluator.CueParameter("object", pod));
        try (CueWorkers cue = new CueWorkers(CueLimits.DEFAULT)) {
            long t0 = System.nanoTime();
            CompiledCue policy = cue.compile(OVERRIDE, ADMINISTRATOR);
            long cold = System.nanoTime() - t0;
            System.out.println("answer: "
                    + cue.evaluate(policy, parameters, "patches", deadline(), CueEvaluator.HttpTasks.REFUSED));
            for (int i = 0; i < calls / 4; i++) { // warm the JVM's side
                cue.evaluate(policy, parameters, "patches", deadline(), CueEvaluator.HttpTasks.REFUSED);
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                cue.evaluate(policy, parameters, "patches", deadline(), CueEvaluator.HttpTasks.REFUSED);
            }
            long per = (System.nanoTime() - t1) / calls;
            System.out.printf("cold start (first compile): %.1f ms%n", cold / 1e6);
            System.out.printf("per evaluation (%d calls, one caller): %.3f ms%n", calls, per / 1e6);
            for (ProcessHandle worker : cue.workers()) {
                String rss = Files.readAllLines(Path.of("/proc", Long.toString(worker.pid()), "status")).stream()
                        .filter(line -> line.startsWith("VmRSS")).findFirst().orElse("VmRSS: ?");
                System.out.println("worker " + worker.pid() + " " + rss.replaceAll("\\s+", " "));
            }
        }
    }

    private static long deadline() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    }
}

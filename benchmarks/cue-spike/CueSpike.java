import com.dylibso.chicory.compiler.MachineFactoryCompiler;
import com.dylibso.chicory.runtime.ImportValues;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.wasi.WasiOptions;
import com.dylibso.chicory.wasi.WasiPreview1;
import com.dylibso.chicory.wasm.Parser;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * The CUE spike's measurement (issue 26): the same kinitiras-style evaluation through a worker process
 * ({@code worker BINARY}) or in-process on Chicory ({@code interpreted|compiled WASM}); prints the start-up cost
 * and the cost per call. Run by run.sh.
 */
public class CueSpike {
    private static final String TEMPLATE = """
            object: _
            patches: [{op: "replace", path: "/metadata/labels/x", value: object.metadata.name + "-" + "\\(len(object.spec.containers))"}]
            """;
    private static final String OBJECT = "{\"metadata\":{\"name\":\"web\",\"labels\":{\"x\":\"a\"}},"
            + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\"}]}}";

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        UnaryOperator<String> call = switch (args[0]) {
            case "worker" -> worker(args[1]);
            case "interpreted" -> chicory(args[1], false);
            case "compiled" -> chicory(args[1], true);
            default -> throw new IllegalArgumentException(args[0]);
        };
        System.out.printf("%s: start %d ms%n", args[0], (System.nanoTime() - start) / 1_000_000);
        String request = "{\"template\":" + quote(TEMPLATE) + ",\"parameters\":[{\"name\":\"object\",\"object\":"
                + OBJECT + "}],\"output\":\"patches\"}";
        int calls = Integer.parseInt(args.length > 2 ? args[2] : "200");
        for (int round = 0; round < 3; round++) {
            int n = round == 0 ? 1 : calls;
            long s = System.nanoTime();
            String out = null;
            for (int i = 0; i < n; i++) {
                out = call.apply(request);
            }
            System.out.printf("%s: round %d, %d calls, %.3f ms/call -> %s%n", args[0], round, n,
                    (System.nanoTime() - s) / 1e6 / n, out);
        }
        System.out.printf("%s: conflict -> %s%n", args[0],
                call.apply("{\"template\":" + quote("a: 1\na: 2\n") + ",\"parameters\":[],\"output\":\"a\"}"));
        Runtime rt = Runtime.getRuntime();
        System.out.printf("%s: JVM heap used %d MB%n", args[0], (rt.totalMemory() - rt.freeMemory()) >> 20);
        System.exit(0);
    }

    private static UnaryOperator<String> worker(String binary) throws Exception {
        Process process = new ProcessBuilder(binary).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        OutputStream in = process.getOutputStream();
        var out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        return request -> {
            try {
                in.write((request + "\n").getBytes(StandardCharsets.UTF_8));
                in.flush();
                return out.readLine();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }

    private static UnaryOperator<String> chicory(String wasm, boolean compiled) {
        var module = Parser.parse(Path.of(wasm));
        var wasi = WasiPreview1.builder().withOptions(WasiOptions.builder().build()).build();
        var builder = Instance.builder(module).withStart(false)
                .withImportValues(ImportValues.builder().addFunction(wasi.toHostFunctions()).build());
        if (compiled) {
            builder = builder.withMachineFactory(MachineFactoryCompiler::compile);
        }
        Instance instance = builder.build();
        instance.export("_initialize").apply();
        return request -> {
            byte[] bytes = request.getBytes(StandardCharsets.UTF_8);
            long p = instance.export("alloc").apply(bytes.length)[0];
            instance.memory().write((int) p, bytes);
            long r = instance.export("eval").apply(p, bytes.length)[0];
            instance.export("free").apply(p);
            return instance.memory().readString((int) (r >>> 32), (int) (r & 0xffffffffL));
        };
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }
}

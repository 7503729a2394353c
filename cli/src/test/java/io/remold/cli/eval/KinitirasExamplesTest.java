package io.remold.cli.eval;

import io.remold.api.YamlJson;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

/**
 * kinitiras's examples ({@code kinitiras/src/test/resources/examples/<name>/}: the example policy unchanged, the
 * request as {@code eval.args}, and the golden its own engine gave), each through {@code eval}. A difference Remold
 * makes on purpose is listed with its reason in {@code kinitiras-examples-differences.yaml}; such an example must
 * still differ, so that the list stays true.
 */
class KinitirasExamplesTest {
    static final Path EXAMPLES = ExamplesTest.EXAMPLES.resolveSibling("kinitiras/src/test/resources/examples");
    /** Flags whose value is a file of the example's folder ({@code --http}'s after the last {@code =}). */
    private static final Set<String> FILE_FLAGS = Set.of("--rules", "--old", "--resource", "--cluster");
    /** How kinitiras's webhook words a failing policy before the error; Remold names the policy its own way. */
    private static final String KINITIRAS_POLICY_ERROR = "^appling policy\\([^)]*\\) err=";
    private static final Map<String, String> DIFFERENCES = differences();

    static Stream<String> examples() {
        return ExamplesTest.folders(EXAMPLES).stream().map(dir -> dir.getFileName().toString());
    }

    /** An example's {@code eval}, and whether it gave the golden (empty) or how it did not. */
    static Optional<String> mismatch(Path dir) throws IOException {
        return mismatch(dir, List.of());
    }

    /** As {@link #mismatch(Path)}, {@code eval} also given {@code flags}. */
    private static Optional<String> mismatch(Path dir, List<String> flags) throws IOException {
        var args = new ArrayList<>(args(dir));
        args.addAll(flags);
        var run = ExamplesTest.Run.of(args);
        Path expected = dir.resolve("expected.yaml");
        Path rejected = dir.resolve("rejected.txt");
        Path refused = dir.resolve("policy-refused.txt");
        if (Files.exists(expected)) {
            if (run.exit() != EvalCommand.ALLOWED) {
                return Optional.of("expected allowed, exit " + run.exit() + ": " + run.err());
            }
            JsonValue want = ExamplesTest.yaml(Files.readString(expected));
            JsonValue got = ExamplesTest.yaml(run.out());
            return want.equals(got) ? Optional.empty()
                    : Optional.of("expected\n" + YamlJson.toYaml(want) + "got\n" + YamlJson.toYaml(got));
        }
        if (Files.exists(rejected)) {
            String message = Files.readString(rejected).strip().replaceFirst(KINITIRAS_POLICY_ERROR, "");
            return run.exit() == EvalCommand.REJECTED && run.err().contains(message) ? Optional.empty()
                    : Optional.of("expected a refusal with \"" + message + "\", exit " + run.exit() + ": "
                    + run.err());
        }
        if (Files.exists(refused)) {
            // kinitiras's CRD refuses with the schema's words; Remold's reader names the same field and value
            String value = Files.readString(refused).replaceFirst("(?s).*?Unsupported value: (\"[^\"]*\").*", "$1");
            return run.exit() == 2 && run.err().contains(value) ? Optional.empty()
                    : Optional.of("expected the policy refused (" + value + "), exit " + run.exit() + ": "
                    + run.err());
        }
        return run.exit() == EvalCommand.ALLOWED ? Optional.empty()
                : Optional.of("expected allowed, exit " + run.exit() + ": " + run.err());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void givesWhatKinitirasGives(String name) throws IOException {
        Optional<String> mismatch = mismatch(EXAMPLES.resolve(name));
        if (DIFFERENCES.containsKey(name)) {
            assertThat(name + " is listed as a deliberate difference (" + DIFFERENCES.get(name)
                    + ") but gives kinitiras's result: take it off the list", mismatch.isPresent());
        } else {
            assertThat(mismatch.orElse(""), mismatch.isEmpty());
        }
    }

    /**
     * With both administrator settings that restore kinitiras's behaviour, every example (each request labelled for
     * kinitiras's webhook, as kinitiras's README applies them) still gives kinitiras's result.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void givesWhatKinitirasGivesWithKinitirasSettings(String name) throws IOException {
        Optional<String> mismatch = mismatch(EXAMPLES.resolve(name),
                List.of("--kinitiras-cross-namespace-overrides", "--kinitiras-webhook-label"));
        assertThat(mismatch.orElse(""), mismatch.isEmpty() || DIFFERENCES.containsKey(name));
    }

    /** The comparison sees a wrong golden of each kind, so that a listed difference that goes away is noticed. */
    @Test
    void aGoldenThatDiffersIsAMismatch(@TempDir Path temp) throws IOException {
        Path allowed = copy("addanno-op", temp);
        Files.writeString(allowed.resolve("expected.yaml"), Files.readString(allowed.resolve("expected.yaml"))
                .replace("added-by: op", "added-by: someone-else"));
        assertThat(mismatch(allowed).isPresent(), is(true));
        Path rejected = copy("addanno-op-no-annotations", temp);
        Files.writeString(rejected.resolve("rejected.txt"), "another message");
        assertThat(mismatch(rejected).isPresent(), is(true));
        Path refused = copy("validate-pab", temp);
        Files.writeString(refused.resolve("policy-refused.txt"), "spec: Unsupported value: \"other\"");
        assertThat(mismatch(refused).isPresent(), is(true));
    }

    private static Path copy(String example, Path temp) throws IOException {
        Path to = Files.createDirectory(temp.resolve(example));
        try (Stream<Path> files = Files.list(EXAMPLES.resolve(example))) {
            for (Path file : files.toList()) {
                Files.copy(file, to.resolve(file.getFileName()));
            }
        }
        return to;
    }

    @Test
    void everyListedDifferenceIsAnExampleWithAReason() {
        Set<String> names = examples().collect(Collectors.toSet());
        assertThat(DIFFERENCES.keySet().stream().filter(name -> !names.contains(name)).toList(), is(empty()));
        assertThat(DIFFERENCES.toString(), DIFFERENCES.values().stream().filter(String::isBlank).toList(),
                is(empty()));
    }

    @Test
    void everyKindOfGoldenIsExercised() {
        for (String golden : List.of("expected.yaml", "rejected.txt", "policy-refused.txt")) {
            assertThat(golden, examples().filter(name -> Files.exists(EXAMPLES.resolve(name).resolve(golden)))
                    .toList(), is(not(empty())));
        }
        assertThat(examples().filter(name -> argsOf(EXAMPLES.resolve(name)).contains("--http")).toList(),
                is(not(empty())));
        assertThat(examples().filter(name -> argsOf(EXAMPLES.resolve(name)).contains("--cluster")).toList(),
                is(not(empty())));
    }

    /** {@code eval.args}, one argument a line, with the example's files resolved in its folder. */
    private static List<String> args(Path dir) {
        var args = new ArrayList<String>();
        List<String> lines = argsOf(dir);
        for (int i = 0; i < lines.size(); i++) {
            String arg = lines.get(i);
            args.add(arg);
            if (i + 1 < lines.size() && (FILE_FLAGS.contains(arg) || arg.equals("--http"))) {
                String value = lines.get(++i);
                if (arg.equals("--http")) {
                    int kv = value.lastIndexOf('=');
                    args.add(value.substring(0, kv + 1) + dir.resolve(value.substring(kv + 1)));
                } else {
                    args.add(dir.resolve(value).toString());
                }
            }
        }
        return args;
    }

    private static List<String> argsOf(Path dir) {
        try {
            return Files.readAllLines(dir.resolve("eval.args")).stream().filter(line -> !line.isBlank()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The deliberate differences: example name to the reason (docs/compatibility.md has each). */
    private static Map<String, String> differences() {
        try (InputStream in = KinitirasExamplesTest.class.getResourceAsStream("kinitiras-examples-differences.yaml")) {
            var out = new TreeMap<String, String>();
            JsonValue list = YamlJson.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8),
                    "kinitiras-examples-differences.yaml").getFirst();
            if (list instanceof JsonObject map) {
                map.forEach((name, reason) -> out.put(name, ((JsonString) reason).getString()));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

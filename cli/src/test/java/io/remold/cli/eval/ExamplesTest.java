package io.remold.cli.eval;

import io.remold.api.YamlJson;
import jakarta.json.JsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * Golden files: every folder of {@code examples/kubemod-readme} (a README rule rewritten for Remold), of
 * {@code examples/kubemod-compat} (the KubeMod original of such a rule, checked against its rewrite's files), of
 * {@code examples/gatekeeper} (Gatekeeper mutators, unchanged manifests), of {@code examples/references} (rules
 * with {@code spec.references}, answered by {@code refs/NAME.yaml}), of {@code examples/external} (rules calling
 * external data providers, answered by {@code external/NAME.yaml}, as Gatekeeper examples may be too), of
 * {@code examples/rules/cases} (inputs for the rule set of {@code examples/rules}) and of {@code
 * examples/kinitiras/NAME/cases} (inputs for kinitiras's example policy {@code NAME/rule.yaml}, unchanged) is evaluated with
 * {@link EvalCommand#run} and compared with its {@code expected.yaml} or {@code rejected.txt}.
 */
public class ExamplesTest {
    public static final Path EXAMPLES = examplesFolder();
    private static final Pattern DOCUMENTED_FLAG = Pattern.compile("\\| `(--[a-z-]+)[ `]");

    /**
     * One example: the rules to load and the folder with input.yaml, expected.yaml or rejected.txt, refs, and
     * optionally {@code flags}.
     */
    record Example(String name, Path rules, Path files) {
        @Override
        public String toString() {
            return name;
        }

        List<String> args(Path resource) {
            // KubeMod's originals sit in kubemod-system: evaluated as a server with kubemod-compat runs them
            var args = new ArrayList<>(List.of("--rules", rules.toString(), "--resource", resource.toString(),
                    "--kubemod-system-namespace", "kubemod-system"));
            addIfPresent(args, "old.yaml", "--old", "");
            addIfPresent(args, "namespace.yaml", "--ref", "namespace=");
            addIfPresent(args, "node.yaml", "--ref", "node=");
            // refs/NAME.yaml answers the rule's reference NAME
            for (Path ref : regularFiles(files.resolve("refs"))) {
                args.add("--ref");
                args.add(ref.getFileName().toString().replaceFirst("[.]yaml$", "") + "=" + ref);
            }
            args.addAll(externals(files));
            // flags: more eval arguments for this case, one a line (an operation, an administrator setting)
            if (Files.exists(files.resolve("flags"))) {
                try {
                    Files.readAllLines(files.resolve("flags")).stream().filter(l -> !l.isBlank()).forEach(args::add);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return args;
        }

        private void addIfPresent(List<String> args, String file, String flag, String prefix) {
            if (Files.exists(files.resolve(file))) {
                args.add(flag);
                args.add(prefix + files.resolve(file));
            }
        }
    }

    static Stream<Example> examples() {
        var out = new ArrayList<Example>();
        for (Path dir : folders(EXAMPLES.resolve("kubemod-readme"))) {
            out.add(new Example("kubemod-readme/" + dir.getFileName(), dir.resolve("rule.yaml"), dir));
        }
        for (Path dir : folders(EXAMPLES.resolve("kubemod-compat"))) {
            Path twin = EXAMPLES.resolve("kubemod-readme").resolve(dir.getFileName());
            assertThat("kubemod-compat/" + dir.getFileName() + " has a kubemod-readme twin", Files.isDirectory(twin));
            out.add(new Example("kubemod-compat/" + dir.getFileName(), dir.resolve("rule.yaml"), twin));
        }
        for (Path dir : folders(EXAMPLES.resolve("gatekeeper"))) {
            out.add(new Example("gatekeeper/" + dir.getFileName(), dir.resolve("rule.yaml"), dir));
        }
        for (Path dir : folders(EXAMPLES.resolve("references"))) {
            out.add(new Example("references/" + dir.getFileName(), dir.resolve("rule.yaml"), dir));
        }
        for (Path dir : folders(EXAMPLES.resolve("external"))) {
            out.add(new Example("external/" + dir.getFileName(), dir.resolve("rule.yaml"), dir));
        }
        for (Path dir : folders(EXAMPLES.resolve("rules/cases"))) {
            out.add(new Example("rules/cases/" + dir.getFileName(), EXAMPLES.resolve("rules"), dir));
        }
        for (Path dir : folders(EXAMPLES.resolve("kinitiras"))) {
            for (Path cases : folders(dir.resolve("cases"))) {
                out.add(new Example("kinitiras/" + dir.getFileName() + "/" + cases.getFileName(),
                        dir.resolve("rule.yaml"), cases));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void evaluatesToItsGoldenFile(Example example) throws IOException {
        Path expected = example.files().resolve("expected.yaml");
        Path rejected = example.files().resolve("rejected.txt");
        Run run = Run.of(example.args(example.files().resolve("input.yaml")));
        if (Files.exists(rejected)) {
            assertThat(run.err(), run.exit(), is(EvalCommand.REJECTED));
            assertThat(run.err().strip(), equalTo(Files.readString(rejected).strip()));
            assertThat(run.out(), is(emptyString()));
        } else {
            assertThat(example + " has expected.yaml or rejected.txt", Files.exists(expected));
            assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
            assertThat(run.err(), is(emptyString()));
            assertThat(yaml(run.out()), equalTo(yaml(Files.readString(expected))));
        }
    }

    /** KubeMod's README asks for idempotent Patch rules; its examples are: their result passes through unchanged. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void resultIsStable(Example example) throws IOException {
        Path expected = example.files().resolve("expected.yaml");
        if (!Files.exists(expected)) {
            return;
        }
        Run run = Run.of(example.args(expected));
        assertThat(run.err(), run.exit(), is(EvalCommand.ALLOWED));
        assertThat(yaml(run.out()), equalTo(yaml(Files.readString(expected))));
    }

    static JsonValue yaml(String text) {
        List<JsonValue> documents = YamlJson.parse(text, "<output>");
        assertThat(text, documents.size(), is(1));
        return documents.getFirst();
    }

    /** Exit code, stdout and stderr of one {@code eval}. */
    /** A command's exit code and what it printed. */
    public record Run(int exit, String out, String err) {
        static Run of(List<String> args) {
            return of(EvalCommand::run, args.toArray(String[]::new));
        }

        public static Run of(Command command, String... args) {
            var out = new ByteArrayOutputStream();
            var err = new ByteArrayOutputStream();
            int exit = command.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }

        /** {@code EvalCommand.run}, {@code Main.run}, ... */
        public interface Command {
            int run(String[] args, PrintStream out, PrintStream err);
        }
    }

    /** {@code external/NAME.yaml} of an example folder answers the external data provider NAME. */
    public static List<String> externals(Path files) {
        var args = new ArrayList<String>();
        for (Path file : regularFiles(files.resolve("external"))) {
            args.add("--external");
            args.add(file.getFileName().toString().replaceFirst("[.]yaml$", "") + "=" + file);
        }
        return args;
    }

    private static List<Path> regularFiles(Path folder) {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(folder)) {
            return list.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<Path> folders(Path parent) {
        try (Stream<Path> list = Files.list(parent)) {
            return list.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The flags a page of docs/ documents: the first cell of its tables' rows, {@code | `--flag ...` |}. */
    public static Set<String> documentedFlags(String page) {
        try (Stream<String> lines = Files.lines(EXAMPLES.resolveSibling("docs").resolve(page))) {
            return lines.map(DOCUMENTED_FLAG::matcher).filter(Matcher::lookingAt).map(m -> m.group(1))
                    .collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The repository's examples folder, found from the module folder the tests run in. */
    private static Path examplesFolder() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("examples/kubemod-readme"))) {
                return dir.resolve("examples");
            }
        }
        throw new IllegalStateException("no examples/kubemod-readme above " + Path.of("").toAbsolutePath());
    }
}

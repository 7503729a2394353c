package io.remold.playground;

import io.remold.api.ModRuleException;
import io.remold.api.YamlJson;
import io.remold.cli.UsageException;
import io.remold.cli.eval.EvalCommand;
import io.remold.cli.eval.OfflineAdmission;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Decides a {@link PlaygroundCase} with eval's own code: the texts are written as files into a fresh folder and eval's
 * command line for them is decided by {@link EvalCommand#decide}, so that the page and {@code remold eval} give the
 * same answer, refusals and input errors included. Messages name the files by the editor they came from
 * ({@code rules.yaml}, {@code resource.yaml}...), without the folder.
 */
final class CaseEvaluation {
    private static final Pattern FILE = Pattern.compile("\\b(rules|resource|old|namespaceRef|nodeRef)\\.yaml\\b");
    private static final Pattern POSITION = Pattern.compile("\\(line (\\d+), column (\\d+)\\)");
    private static final String EVAL_PREFIX = "remold eval: ";

    private CaseEvaluation() {
    }

    /**
     * The page's answer: {@code allowed}, {@code rejection}, {@code before} and {@code after} (the object as YAML),
     * {@code patch}, {@code warnings}, {@code explain} (eval's trace lines), {@code errors} (each with its editor,
     * line and column, 0 when unknown); an input error leaves only {@code errors}.
     */
    static JsonObject evaluate(PlaygroundCase c) {
        Path folder;
        try {
            folder = Files.createTempDirectory("remold-playground-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            List<String> args = arguments(c, folder);
            var trace = new ByteArrayOutputStream();
            String prefix = folder + folder.getFileSystem().getSeparator();
            try (var traceOut = new PrintStream(trace, true, StandardCharsets.UTF_8)) {
                EvalCommand.Evaluation evaluation = EvalCommand.decide(args.toArray(String[]::new), traceOut);
                return answer(evaluation, trace.toString(StandardCharsets.UTF_8).replace(prefix, ""));
            } catch (UsageException | ModRuleException e) {
                return errors(e.getMessage().replace(prefix, ""));
            }
        } finally {
            delete(folder);
        }
    }

    /** eval's command line for the case: a file per non-empty editor, {@code --explain} always. */
    static List<String> arguments(PlaygroundCase c, Path folder) {
        var args = new ArrayList<String>();
        args.add("--rules=" + write(folder, "rules", c.rules()));
        args.add("--resource=" + write(folder, "resource", c.resource()));
        if (!c.old().isBlank()) {
            args.add("--old=" + write(folder, "old", c.old()));
        }
        if (!c.namespaceRef().isBlank()) {
            args.add("--ref=namespace=" + write(folder, "namespaceRef", c.namespaceRef()));
        }
        if (!c.nodeRef().isBlank()) {
            args.add("--ref=node=" + write(folder, "nodeRef", c.nodeRef()));
        }
        // --flag=value: a value that starts with dashes stays a value
        if (!c.operation().isBlank()) {
            args.add("--operation=" + c.operation());
        }
        if (!c.namespace().isBlank()) {
            args.add("--namespace=" + c.namespace());
        }
        if (!c.kubemodSystemNamespace().isBlank()) {
            args.add("--kubemod-system-namespace=" + c.kubemodSystemNamespace());
        }
        args.add("--explain");
        return args;
    }

    private static JsonObject answer(EvalCommand.Evaluation evaluation, String trace) {
        OfflineAdmission.Answer answer = evaluation.answer();
        JsonArrayBuilder explain = Json.createArrayBuilder();
        JsonArrayBuilder warnings = Json.createArrayBuilder();
        // eval's own notes (rules not in force) are warnings; the rest is the --explain trace
        trace.lines().forEach(line -> {
            if (line.startsWith(EVAL_PREFIX)) {
                warnings.add(line.substring(EVAL_PREFIX.length()));
            } else {
                explain.add(line);
            }
        });
        answer.warnings().forEach(warnings::add);
        JsonObjectBuilder out = Json.createObjectBuilder()
                .add("allowed", answer.allowed())
                .add("before", YamlJson.toYaml(evaluation.resource()))
                .add("warnings", warnings)
                .add("explain", explain)
                .add("errors", Json.createArrayBuilder());
        if (answer.allowed()) {
            out.add("after", YamlJson.toYaml(answer.result())).add("patch", answer.enforcedMutation().patch());
        } else {
            out.add("rejection", answer.rejection());
        }
        return out.build();
    }

    /** One error per line of the message (a broken rule may have several), each placed in its editor. */
    static JsonObject errors(String message) {
        JsonArrayBuilder errors = Json.createArrayBuilder();
        message.lines().forEach(line -> {
            Matcher file = FILE.matcher(line);
            Matcher position = POSITION.matcher(line);
            boolean placed = position.find();
            errors.add(Json.createObjectBuilder()
                    .add("source", file.find() ? file.group(1) : "request")
                    .add("line", placed ? Integer.parseInt(position.group(1)) : 0)
                    .add("column", placed ? Integer.parseInt(position.group(2)) : 0)
                    .add("message", line));
        });
        return Json.createObjectBuilder().add("errors", errors).build();
    }

    private static Path write(Path folder, String editor, String text) {
        Path file = folder.resolve(editor + ".yaml");
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    private static void delete(Path folder) {
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.remold.cli.eval;

import io.remold.api.ModRule;
import io.remold.api.ModRuleException;
import io.remold.api.ModRules;
import io.remold.api.Provider;
import io.remold.cli.UsageException;
import io.remold.engine.Engine;
import io.remold.engine.Provenance;
import io.remold.engine.RuleFamily;
import io.remold.engine.ReferenceScope;
import io.remold.engine.RuleCompilation;
import io.remold.rules.RuleDocuments;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads the ModRules of files and folders and refuses, with file, document, field and line, any rule that does not
 * compile: an offline check should fail loudly where the server would only skip the rule.
 */
public final class RuleFiles {
    private static final Pattern FIELD_STEP = Pattern.compile("([^.\\[\\]]+)|\\[(\\d+)]");

    private RuleFiles() {
    }

    /**
     * The rules of the files, each with its file: ModRules, Gatekeeper mutators, scripts, kinitiras policies; and the
     * external data Providers among them by name (for their failure policy and {@code spec.namespaces}).
     */
    public record Loaded(List<Located> located, Map<String, Provider> providers) {
        /** The rules, in the order read. */
        public List<RuleDocuments.Entry> entries() {
            return located.stream().map(Located::entry).toList();
        }

        /**
         * Each rule's {@code metadata.generation} by family and name as outcomes name them; 0 when its file does
         * not say.
         */
        public Provenance.Generations generations() {
            var generations = new HashMap<String, Long>();
            for (RuleDocuments.Entry entry : entries()) {
                switch (entry) {
                    case RuleDocuments.RuleEntry r -> generations.put(key(RuleFamily.MODRULE, r.rule().id()),
                            r.rule().generation());
                    case RuleDocuments.FamilyEntry<?> f -> generations.put(key(f.family().family(), f.id()),
                            f.manifest().getJsonObject("metadata") instanceof JsonObject metadata
                                    && metadata.get("generation") instanceof JsonNumber n ? n.longValue() : 0L);
                }
            }
            return (family, rule) -> generations.getOrDefault(key(family, rule), 0L);
        }

        private static String key(RuleFamily family, String rule) {
            return family.name() + ' ' + rule;
        }

        /** The ModRules, in the order read. */
        List<ModRule> rules() {
            return entries().stream().<ModRule>mapMulti((entry, out) -> {
                if (entry instanceof RuleDocuments.RuleEntry r) {
                    out.accept(r.rule());
                }
            }).toList();
        }

        /** The rules of the family whose rules are {@code type}, in the order read. */
        <R> List<R> rulesOf(Class<R> type) {
            return entries().stream().<R>mapMulti((entry, out) -> {
                if (entry instanceof RuleDocuments.FamilyEntry<?> f && type.isInstance(f.rule())) {
                    out.accept(type.cast(f.rule()));
                }
            }).toList();
        }
    }

    /** What the files hold: the rules, located, and the Providers. */
    private record Contents(List<Located> entries, List<Provider> providers) {
    }

    /** A rule and the file it was read from. */
    public record Located(Path file, RuleDocuments.Entry entry) {
        /** {@code FILE: document N}, with the item of a List: how messages name the rule's place. */
        public String origin() {
            return file + ": document " + entry.document()
                    + (entry.prefix().isEmpty() ? "" : " (" + entry.prefix().replace(".", "") + ")");
        }
    }

    /** The rules of all paths, as {@link #entries} reads them. */
    public static Loaded load(List<Path> paths) {
        Contents contents = contents(paths);
        var providers = new LinkedHashMap<String, Provider>();
        contents.providers().forEach(p -> providers.put(p.name(), p)); // of two with one name the later wins
        return new Loaded(contents.entries(), Map.copyOf(providers));
    }

    /**
     * The rules of all paths in the order read, each compiled (a ModRule that does not compile is an {@link
     * UsageException} naming its field and line). Two rules with one id (namespace and name; kind and name for a
     * mutator) are refused: in a cluster the second would replace the first, and an offline check should not pick
     * one silently.
     */
    public static List<Located> entries(List<Path> paths) {
        return contents(paths).entries();
    }

    private static Contents contents(List<Path> paths) {
        var origins = new LinkedHashMap<String, String>();
        var out = new ArrayList<Located>();
        var providers = new ArrayList<Provider>();
        for (Path path : paths) {
            for (Path file : files(path)) {
                RuleDocuments.Contents contents = read(file);
                contents.providers().forEach(entry -> providers.add(entry.provider()));
                for (RuleDocuments.Entry entry : contents.rules()) {
                    var located = new Located(file, entry);
                    String previous = origins.putIfAbsent(entry.id(), located.origin());
                    if (previous != null) {
                        throw new UsageException("rule " + entry.id() + " is defined twice: " + previous + " and "
                                + located.origin());
                    }
                    out.add(located);
                }
            }
        }
        return new Contents(List.copyOf(out), List.copyOf(providers));
    }

    /**
     * A file as given, or the YAML and JSON files directly in a folder, in name order (hidden ones skipped). Not
     * recursive, as {@code serve --rules} reads a folder: subfolders may hold test inputs.
     */
    private static List<Path> files(Path path) {
        if (Files.isRegularFile(path)) {
            return List.of(path);
        }
        if (!Files.isDirectory(path)) {
            throw new UsageException("--rules " + path + ": no such file or folder");
        }
        try (Stream<Path> list = Files.list(path)) {
            List<Path> files = list.filter(Files::isRegularFile)
                    .filter(p -> !p.getFileName().toString().startsWith("."))
                    .filter(p -> p.getFileName().toString().matches(".*\\.(yaml|yml|json)"))
                    .sorted()
                    .toList();
            if (files.isEmpty()) {
                throw new UsageException("--rules " + path + ": no .yaml, .yml or .json file in this folder");
            }
            return files;
        } catch (IOException e) {
            throw new UsageException("--rules " + path + ": cannot read: " + e.getMessage());
        } catch (UncheckedIOException e) {
            throw new UsageException("--rules " + path + ": cannot read: " + e.getCause().getMessage());
        }
    }

    private static RuleDocuments.Contents read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UsageException("--rules " + file + ": cannot read: " + e.getMessage());
        }
        String source = file.toString();
        RuleDocuments.Contents contents = RuleDocuments.readAll(text, source);
        for (RuleDocuments.Entry entry : contents.rules()) {
            if (entry instanceof RuleDocuments.RuleEntry r) {
                // as the server would: a namespaced rule may not name a namespace or a cluster-scoped kind
                RuleCompilation compilation = ReferenceScope.compile(r.rule(), Engine.DEFAULT_SYSTEM_NAMESPACE,
                        ReferenceScope::builtInRefusal);
                if (!compilation.ok()) {
                    throw new UsageException(describe(text, source, r.document(), r.prefix(), compilation));
                }
            }
        }
        return contents;
    }

    /** One line per problem, in the reader's {@code file: document N (line L, column C): field: message} form. */
    private static String describe(String text, String source, int document, String prefix,
                                   RuleCompilation compilation) {
        var lines = new ArrayList<String>();
        for (RuleCompilation.Problem problem : compilation.errors()) {
            String field = prefix + problem.field();
            int[] at = locate(text, document, field, problem.position());
            lines.add(new ModRuleException(source, document, field, at[0], at[1],
                    "rule " + compilation.rule() + ": " + problem.message()).getMessage());
        }
        return String.join("\n", lines);
    }

    /**
     * Line and column (1-based) of a field of the {@code document}-th non-empty document, moved {@code offset}
     * characters into the value when it is a one-line scalar; {0, 0} when the text holds no such document.
     */
    static int[] locate(String text, int document, String field, int offset) {
        Node node = null;
        int seen = 0;
        for (Node root : new Yaml().composeAll(new StringReader(text))) {
            if (root != null && ++seen == document) {
                node = root;
                break;
            }
        }
        if (node == null) {
            return new int[] {0, 0};
        }
        Matcher step = FIELD_STEP.matcher(field);
        while (step.find()) {
            Node child = step.group(1) != null ? child(node, step.group(1)) : element(node, Integer.parseInt(step.group(2)));
            if (child == null) {
                break;
            }
            node = child;
        }
        int line = node.getStartMark().getLine() + 1;
        int column = node.getStartMark().getColumn() + 1;
        if (node instanceof ScalarNode scalar && offset > 0
                && scalar.getStartMark().getLine() == scalar.getEndMark().getLine()) {
            column += offset + (scalar.getScalarStyle() == DumperOptions.ScalarStyle.PLAIN ? 0 : 1);
        }
        return new int[] {line, column};
    }

    private static Node child(Node node, String key) {
        if (node instanceof MappingNode map) {
            for (NodeTuple tuple : map.getValue()) {
                if (tuple.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
                    return tuple.getValueNode();
                }
            }
        }
        return null;
    }

    private static Node element(Node node, int index) {
        return node instanceof SequenceNode seq && index < seq.getValue().size() ? seq.getValue().get(index) : null;
    }
}

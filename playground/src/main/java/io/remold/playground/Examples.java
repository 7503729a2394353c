package io.remold.playground;

import io.remold.api.YamlJson;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The examples the page loads: each folder of the repository's examples/ with a {@code rule.yaml} and an
 * {@code input.yaml}, and the inputs eval takes beside them ({@code old.yaml}, {@code namespace.yaml},
 * {@code node.yaml}; the KubeMod system namespace of its {@code remold-test.yaml}). Folders that need more (reference
 * files, external data, script state, server flags) are left out: the page has no editor for those. Read once, from
 * the jar (where the build puts examples/) or from a folder.
 */
final class Examples {
    private static final String IN_JAR = "io/remold/playground/examples";
    private static final List<String> UNSUPPORTED = List.of("refs", "external", "state.yaml", "flags");

    private final Map<String, PlaygroundCase> cases;

    private Examples(Map<String, PlaygroundCase> cases) {
        this.cases = cases;
    }

    /** The examples packaged in the jar; none when the jar has none. */
    static Examples packaged() {
        return packaged(Examples.class.getClassLoader());
    }

    /** The examples packaged in the jar (or classes folder) that {@code loader} reads. */
    static Examples packaged(ClassLoader loader) {
        URL url = loader.getResource(IN_JAR);
        if (url == null) {
            return new Examples(Map.of());
        }
        try {
            URI uri = url.toURI();
            if (uri.getScheme().equals("jar")) {
                // read once, here: the jar's file system is closed after
                try (var jar = FileSystems.newFileSystem(uri, Map.of())) {
                    return read(jar.provider().getPath(uri));
                }
            }
            return read(Path.of(uri));
        } catch (URISyntaxException | IOException e) {
            throw new IllegalStateException("cannot read the packaged examples at " + url + ": " + e, e);
        }
    }

    /** The examples of a folder laid out as the repository's examples/. */
    static Examples read(Path root) {
        var cases = new LinkedHashMap<String, PlaygroundCase>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path rule : files.filter(f -> f.getFileName() != null
                    && f.getFileName().toString().equals("rule.yaml")).sorted().toList()) {
                Path folder = rule.getParent();
                if (Files.exists(folder.resolve("input.yaml"))
                        && UNSUPPORTED.stream().noneMatch(name -> Files.exists(folder.resolve(name)))) {
                    String id = root.relativize(folder).toString().replace(folder.getFileSystem().getSeparator(), "/");
                    cases.put(id, example(folder));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the examples of " + root, e);
        }
        return new Examples(Map.copyOf(cases));
    }

    private static PlaygroundCase example(Path folder) throws IOException {
        String old = text(folder.resolve("old.yaml"));
        return new PlaygroundCase(text(folder.resolve("rule.yaml")), text(folder.resolve("input.yaml")), old,
                text(folder.resolve("namespace.yaml")), text(folder.resolve("node.yaml")), "", "",
                kubemodSystemNamespace(folder.resolve("remold-test.yaml")));
    }

    /** The suite's {@code options.kubemodSystemNamespace}, so that the example runs as its suite runs it. */
    private static String kubemodSystemNamespace(Path suite) throws IOException {
        String text = text(suite);
        if (text.isEmpty()) {
            return "";
        }
        for (JsonValue document : YamlJson.parse(text, suite.toString())) {
            if (document instanceof JsonObject o && o.get("options") instanceof JsonObject options) {
                return options.getString("kubemodSystemNamespace", "");
            }
        }
        return "";
    }

    private static String text(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }

    /** The examples' ids (their folders under examples/, such as {@code kubemod-readme/add-flavor-label}), sorted. */
    List<String> ids() {
        return cases.keySet().stream().sorted().toList();
    }

    Optional<PlaygroundCase> get(String id) {
        return Optional.ofNullable(cases.get(id));
    }
}

package io.remold.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/**
 * helm, built from the Go module proxy by e2e/helm.sh (cached), and the repository's chart against the installer's
 * bundle: the objects {@code helm template} renders with the values the installer writes for some flags are the
 * bundle's objects for the same flags, but for two differences the chart makes on purpose: the certgen Job is named
 * by release revision (the bundle names it by a digest of its spec), and the pre-delete hook's objects are the
 * chart's own.
 */
final class Helm {
    static final String RELEASE = "remold";
    private static final Pattern CERTGEN_JOB = Pattern.compile("remold-certgen-[0-9a-f]{10}|remold-certgen-[0-9]+");

    private final Path repo;
    private final Path work;
    private final Path binary;

    Helm(Path repo, Path work) {
        this.repo = repo;
        this.work = work;
        this.binary = Path.of(Command.of("bash", repo.resolve("e2e/helm.sh").toString()).run().orFail().stdout().strip());
    }

    Path chart() {
        return repo.resolve("charts/remold");
    }

    Command helm(String... args) {
        var argv = new ArrayList<>(List.of(binary.toString()));
        argv.addAll(List.of(args));
        return new Command(argv, null);
    }

    private Command installer(String... args) {
        var argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                repo.resolve("installer/target/remold-installer.jar").toString()));
        argv.addAll(List.of(args));
        return new Command(argv, null);
    }

    /** The installer's bundle for these flags. */
    String bundle(String... flags) {
        return installer(flags).run().orFail().stdout();
    }

    /** The values.yaml the installer writes for these flags ({@code --helm-chart DIR flags...}). */
    Path values(String name, String... flags) {
        Path dir = work.resolve("helm-values-" + name);
        var args = new ArrayList<>(List.of("--helm-chart", dir.toString()));
        args.addAll(List.of(flags));
        installer(args.toArray(String[]::new)).run().orFail();
        return dir.resolve("values.yaml");
    }

    /** {@code helm template} of the repository's chart with these values. */
    String template(Path values) {
        return helm("template", RELEASE, chart().toString(), "-f", values.toString()).run().orFail().stdout();
    }

    /** The objects of a YAML stream, hook objects left out, each as canonical text (sorted keys), sorted. */
    static List<String> objects(String yaml, boolean hooks) {
        var out = new ArrayList<String>();
        for (Object document : new Yaml().loadAll(yaml)) {
            if (!(document instanceof Map<?, ?> object)) {
                continue;
            }
            boolean hook = object.get("metadata") instanceof Map<?, ?> metadata
                    && metadata.get("annotations") instanceof Map<?, ?> annotations
                    && annotations.containsKey("helm.sh/hook");
            if (hook == hooks) {
                out.add(CERTGEN_JOB.matcher(canonical(object)).replaceAll("remold-certgen-JOB"));
            }
        }
        out.sort(null);
        return out;
    }

    private static String canonical(Object value) {
        if (value instanceof Map<?, ?> map) {
            var sorted = new TreeMap<String, String>();
            map.forEach((k, v) -> sorted.put(String.valueOf(k), canonical(v)));
            return sorted.toString();
        }
        if (value instanceof List<?> list) {
            return list.stream().map(Helm::canonical).toList().toString();
        }
        return value instanceof String s ? "'" + s + "'" : String.valueOf(value);
    }

    static Path write(Path dir, String name, String text) {
        try {
            Files.createDirectories(dir);
            return Files.writeString(dir.resolve(name), text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

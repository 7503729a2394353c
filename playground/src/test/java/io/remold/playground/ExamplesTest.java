package io.remold.playground;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

/** The examples as `remold playground` reads them from its jar alone. */
class ExamplesTest {
    private static final Path EXAMPLES = Path.of(System.getProperty("remold.examples.dir", "../examples"));

    @Test
    void examplesAreReadFromAJar() throws IOException {
        String id = "kubemod-readme/add-flavor-label";
        Path jar = Files.createTempDirectory("playground-jar-").resolve("remold-playground.jar");
        try (var out = new JarOutputStream(Files.newOutputStream(jar))) {
            // folders are entries of their own, as the jar plugin writes them (getResource finds a folder by its entry)
            for (String folder : List.of("io/", "io/remold/", "io/remold/playground/", "io/remold/playground/examples/",
                    "io/remold/playground/examples/kubemod-readme/", "io/remold/playground/examples/" + id + "/")) {
                out.putNextEntry(new JarEntry(folder));
            }
            for (String file : List.of("rule.yaml", "input.yaml", "namespace.yaml", "remold-test.yaml")) {
                out.putNextEntry(new JarEntry("io/remold/playground/examples/" + id + "/" + file));
                out.write(Files.readAllBytes(EXAMPLES.resolve(id).resolve(file)));
            }
        }
        try (var loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            Examples examples = Examples.packaged(loader);
            assertThat(examples.ids(), equalTo(List.of(id)));
            PlaygroundCase example = examples.get(id).orElseThrow();
            assertThat(example.rules(), equalTo(Files.readString(EXAMPLES.resolve(id).resolve("rule.yaml"))));
            assertThat(example.kubemodSystemNamespace(), equalTo("kubemod-system"));
            assertThat(example.old(), equalTo(""));
        }
    }
}

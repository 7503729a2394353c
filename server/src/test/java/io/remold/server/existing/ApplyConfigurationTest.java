package io.remold.server.existing;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.stream.JsonGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * Patch and object as stored (with managedFields) to the apply configuration: one case per file in
 * {@code src/test/resources/existing/apply}, its expected configuration (or why there is none) in the
 * {@code .golden} file next to it (rewritten with {@code -Dremold.updateGolden=true}).
 */
class ApplyConfigurationTest {
    private static final Path CASES = Path.of("src/test/resources/existing/apply");
    private static final boolean UPDATE = Boolean.getBoolean("remold.updateGolden");
    static final String MANAGER = "remold-existing";

    static Stream<String> cases() throws IOException {
        try (var files = Files.list(CASES)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - ".json".length())).sorted().toList().stream();
        }
    }

    static JsonObject read(Path file) throws IOException {
        try (var reader = Json.createReader(new StringReader(Files.readString(file)))) {
            return reader.readObject();
        }
    }

    static String pretty(JsonObject json) {
        var out = new StringWriter();
        try (var writer = Json.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true)).createWriter(out)) {
            writer.write(json);
        }
        return out.toString().strip() + "\n";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void buildsTheSmallestConfiguration(String name) throws IOException {
        JsonObject testCase = read(CASES.resolve(name + ".json"));
        var built = ApplyConfiguration.of(testCase.getJsonObject("object"), testCase.getJsonArray("patch"), MANAGER);
        String actual = switch (built) {
            case ApplyConfiguration.Built.Config(JsonObject body) -> pretty(body);
            case ApplyConfiguration.Built.NotExpressible(String why) -> "not expressible: " + why + "\n";
        };
        Path golden = CASES.resolve(name + ".golden");
        if (UPDATE) {
            Files.writeString(golden, actual);
        }
        assertThat(name + " (rerun with -Dremold.updateGolden=true and review the diff)", actual,
                equalTo(Files.readString(golden)));
    }

    private static Optional<Map.Entry<String, String>> owner(String name) throws IOException {
        JsonObject testCase = read(CASES.resolve(name + ".json"));
        return ApplyConfiguration.owner(testCase.getJsonObject("object"), testCase.getJsonArray("patch"), MANAGER);
    }

    @Test
    void aFieldAnotherManagerOwnsIsNamedWithItsManager() throws IOException {
        assertThat(owner("container-image-by-name"),
                is(Optional.of(Map.entry("kubectl-create", ".spec.template.spec.containers[name=\"proxy\"].image"))));
        assertThat("a whole list set over the creator's", owner("atomic-list-whole"),
                is(Optional.of(Map.entry("kubectl-create", ".spec.template.spec.containers[name=\"app\"].args"))));
    }

    @Test
    void newFieldsAndOurOwnAreNobodyElses() throws IOException {
        assertThat(owner("label-added"), is(Optional.empty()));
        assertThat(owner("sidecar-added-whole"), is(Optional.empty()));
        assertThat(owner("owned-field-removed"), is(Optional.empty()));
    }
}

package io.remold.server;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

/**
 * The configuration table of docs/server.md, the keys the server reads ({@link ServerConfig#KEYS}) and the defaults
 * in application.yaml name the same keys, with the same environment variables and defaults, so they cannot drift.
 */
class ConfigurationDocsTest {
    /** A row of the table: {@code | `--key` | `REMOLD_KEY` | default | meaning |}. */
    private static final Pattern ROW =
            Pattern.compile("^\\| `--([a-z-]+)` \\| `([A-Z_]+)` \\| ([^|]+) \\|", Pattern.MULTILINE);
    /** A default written as a value: {@code `8443`} or {@code `3145728` (3 MiB)}; other defaults are prose. */
    private static final Pattern VALUE = Pattern.compile("^`([^`]*)`");

    private record Row(String environment, String defaultValue) {
    }

    private static Map<String, Row> documented() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "server.md"));
        String section = doc.substring(doc.indexOf("\n## Configuration\n"));
        section = section.substring(0, section.indexOf("\n## ", 1));
        var rows = new LinkedHashMap<String, Row>();
        Matcher row = ROW.matcher(section);
        while (row.find()) {
            rows.put(row.group(1), new Row(row.group(2), row.group(3).strip()));
        }
        return rows;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> defaults() throws IOException {
        try (InputStream in = ConfigurationDocsTest.class.getResourceAsStream("/application.yaml")) {
            return (Map<String, Object>) new Yaml().<Map<String, Object>>load(in).get("remold");
        }
    }

    private static List<String> keys() {
        return ServerConfig.KEYS.stream().map(ServerConfig.Key::name).toList();
    }

    @Test
    void everyKeyIsDocumentedOnceWithItsEnvironmentVariableAndNothingElseIs() throws IOException {
        Map<String, Row> documented = documented();
        assertThat(List.copyOf(documented.keySet()).stream().sorted().toList(),
                equalTo(keys().stream().sorted().toList()));
        for (ServerConfig.Key key : ServerConfig.KEYS) {
            assertThat(key.name(), documented.get(key.name()).environment(), is(key.env()));
        }
    }

    @Test
    void everyKeyHasItsDefaultInApplicationYamlAsDocumented() throws IOException {
        Map<String, Object> defaults = defaults();
        assertThat(defaults.keySet().stream().sorted().toList(), equalTo(keys().stream().sorted().toList()));
        documented().forEach((key, row) -> {
            String value = String.valueOf(defaults.get(key));
            Matcher written = VALUE.matcher(row.defaultValue());
            if (written.find()) {
                assertThat(key, written.group(1), is(value));
            } else if (row.defaultValue().equals("—")) {
                assertThat(key + " is documented without a default", value, is(""));
            }
        });
    }
}

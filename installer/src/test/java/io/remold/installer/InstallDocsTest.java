package io.remold.installer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.containsString;

/**
 * The options table of docs/install.md and the installer's {@code --help} list the same options, each taking a value
 * in both or in neither, and the installer accepts every one of them, so the docs cannot drift from the code.
 */
class InstallDocsTest {
    /** {@code | `--replicas N` | ...}: the option and whether a value follows it. */
    private static final Pattern DOC_ROW = Pattern.compile("^\\| `(--[a-z-]+)( [^`]+)?` \\|", Pattern.MULTILINE);
    /** {@code   --replicas N     server replicas (default 2)}. */
    private static final Pattern USAGE_LINE = Pattern.compile("^ {2}(--[a-z-]+)( [A-Z][A-Z0-9,.]*)?(?: |$)",
            Pattern.MULTILINE);

    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Each option and whether it takes a value. */
    private static Map<String, Boolean> options(Pattern pattern, String text) {
        var options = new TreeMap<String, Boolean>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            options.put(m.group(1), m.group(2) != null);
        }
        return options;
    }

    private static Map<String, Boolean> documented() throws IOException {
        return options(DOC_ROW, Files.readString(Path.of("..", "docs", "install.md")));
    }

    @Test
    void theDocumentedOptionsAreTheOptionsOfHelp() throws IOException {
        Run help = run("--help");
        assertThat(help.code(), is(0));
        Map<String, Boolean> listed = options(USAGE_LINE, help.out());
        assertThat(listed.remove("--help"), is(false));
        assertThat(documented(), equalTo(listed));
    }

    @Test
    void theInstallerAcceptsEveryDocumentedOption(@TempDir Path dir) throws IOException {
        documented().forEach((option, takesValue) -> {
            // --helm-chart writes a chart into its directory
            String value = option.equals("--helm-chart") ? dir.resolve("chart").toString() : "x";
            Run run = takesValue ? run(option, value) : run(option);
            assertThat(option, run.err(), not(containsString("unknown option")));
        });
    }
}

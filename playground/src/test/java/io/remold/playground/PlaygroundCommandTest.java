package io.remold.playground;

import io.remold.cli.UsageException;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PlaygroundCommandTest {
    @Test
    void optionsAreParsed() {
        Map<List<String>, PlaygroundCommand.Options> cases = Map.of(
                List.of(), new PlaygroundCommand.Options(8090, "127.0.0.1", null, false),
                List.of("--port", "0", "--bind=::1"), new PlaygroundCommand.Options(0, "::1", null, false),
                List.of("--examples", "ex"), new PlaygroundCommand.Options(8090, "127.0.0.1", Path.of("ex"), false),
                List.of("--help"), new PlaygroundCommand.Options(8090, "127.0.0.1", null, true));
        cases.forEach((args, expected) -> assertThat(args.toString(),
                PlaygroundCommand.Options.parse(args.toArray(String[]::new)), equalTo(expected)));
    }

    @Test
    void badOptionsSayWhich() {
        Map<List<String>, String> cases = Map.of(
                List.of("--port", "99999"), "--port expects a port number (0 to 65535), got \"99999\"",
                List.of("--port", "http"), "--port expects a port number (0 to 65535), got \"http\"",
                List.of("--colour", "blue"), "--colour");
        cases.forEach((args, message) -> assertThat(args.toString(), assertThrows(UsageException.class,
                () -> PlaygroundCommand.Options.parse(args.toArray(String[]::new))).getMessage(),
                containsString(message)));
    }

    @Test
    void aBadOptionExitsWith2() {
        var err = new ByteArrayOutputStream();
        int code = PlaygroundCommand.run(new String[] {"--port", "x"}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code, equalTo(2));
        assertThat(err.toString(StandardCharsets.UTF_8), containsString("remold playground: --port expects"));
    }

    @Test
    void everyFlagIsDocumented() throws IOException {
        String docs = Files.readString(Path.of("../docs/playground.md"));
        for (String flag : PlaygroundCommand.FLAGS) {
            assertThat(flag, docs, containsString("`" + flag));
        }
    }
}
